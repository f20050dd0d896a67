// transcode.cpp: the transcode loop (transcode.h).
//
// One thread: read a packet; video packets go through decoder -> filter ->
// encoder -> muxer, every other packet straight to the muxer (stream copy).
// Decoded frames keep their timestamps (best_effort_timestamp, in the input
// stream's time base, which is also the encoder's), so frame count, timestamps
// and frame rate come out as they went in. The encoder opens on the first
// denoised frame, and the output header is written then; copied packets read
// before that wait in Output.
#include "transcode.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "decoder.h"
#include "encoder.h"
#include "errors.h"
#include "filter_step.h"
#include "gpu_device.h"
#include "input.h"
#include "interrupt.h"
#include "output.h"

namespace cdn::transcode {

namespace {

std::string size_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

class Pipeline {
 public:
  Pipeline(const TranscodeOptions& o, const std::function<void(const std::string&)>& note) : o_(o), note_(note) {}
  ~Pipeline() {
    if (progress_) progress_->finish();
  }

  Summary run() {
    input_ = std::make_unique<Input>(o_.input);
    if (!o_.null_output()) output_ = std::make_unique<Output>(*input_, o_);
    open_gpu();
    decoder_ = std::make_unique<Decoder>(input_->format(), input_->video(), gpu_.get());
    filter_ = std::make_unique<FilterStep>(o_.settings, o_.denoise, gpu_.get(), o_.gpus);
    for (const std::string& n : output_ ? output_->notes() : std::vector<std::string>{}) note_(n);

    const AVStream* video = input_->video();
    const long long nb = video->nb_frames > 0 ? video->nb_frames : 0;
    const long long total = o_.max_frames > 0 ? static_cast<long long>(o_.max_frames) : nb;
    progress_ = std::make_unique<Progress>(!o_.quiet && ::isatty(2), input_->duration_seconds(), total);

    PacketPtr pkt = alloc_packet();
    frame_ = alloc_frame();
    out_pkt_ = alloc_packet();
    while (!done_ && input_->read(pkt.get())) {
      check_interrupted();
      if (pkt->stream_index == input_->video_index()) {
        decoder_->send(pkt.get());
        drain_decoder();
      } else if (output_) {
        output_->write_copy(pkt.get());
      }
      av_packet_unref(pkt.get());
    }
    if (!done_) {
      decoder_->send(nullptr);
      drain_decoder();
    }
    filter_->finish();
    drain_filter();
    if (frames_in_ == 0) throw Failure(kExitInput, o_.input + ": no video frame could be decoded");
    if (summary_.frames != frames_in_)
      throw Failure(kExitFailure, "the filter returned " + std::to_string(summary_.frames) + " frames for " +
                                      std::to_string(frames_in_) + " (a bug)");
    if (encoder_) {
      const AVStream* v = input_->video();
      if (o_.max_frames == 0 && v->duration != AV_NOPTS_VALUE && v->duration > 0)
        encoder_->set_stream_end((v->start_time != AV_NOPTS_VALUE ? v->start_time : 0) + v->duration);
      encoder_->send(nullptr);
      drain_encoder();
    }
    check_interrupted();
    progress_->update(summary_.frames, summary_.media_seconds);
    progress_->finish();
    if (o_.max_frames == 0) check_complete();
    if (output_) output_->finish();

    summary_.seconds = progress_->elapsed();
    summary_.filter = filter_->name();
    summary_.host_copies = filter_->host_copies();
    summary_.downloads = encoder_ ? encoder_->downloads() : 0;
    summary_.codec = o_.codec;
    summary_.mode = o_.denoise ? mode_name(o_.settings.mode) : "none";
    summary_.output = output_ ? output_->target() : "";
    summary_.gpu = gpu_ ? gpu_->name() : "";
    return summary_;
  }

 private:
  void open_gpu() {
    if (o_.backend == Backend::Cpu) return;
    std::string why;
    gpu_ = GpuDevice::open(o_.gpu, &why);
    if (!gpu_ && o_.backend == Backend::Cuda) throw Failure(kExitGpu, "--backend cuda: " + why);
    if (!gpu_ && o_.verbose) note_("no GPU (" + why + "): decoding, denoising and encoding on the CPU");
  }

  void drain_decoder() {
    while (!done_ && decoder_->receive(frame_.get())) {
      on_decoded(frame_.get());
      av_frame_unref(frame_.get());
    }
  }

  // Timestamps as decoded; only a missing or non-increasing pts is repaired
  // (encoders reject them), with a note.
  void fix_timestamp(AVFrame* f) {
    int64_t pts = f->best_effort_timestamp;
    if (pts == AV_NOPTS_VALUE) pts = next_pts_;
    if (last_pts_ != AV_NOPTS_VALUE && pts <= last_pts_) {
      if (!pts_repaired_) note_("the input has non-increasing video timestamps; repaired");
      pts_repaired_ = true;
      pts = last_pts_ + 1;
    }
    f->pts = pts;
    last_pts_ = pts;
    int64_t step = f->pkt_duration;
    if (step <= 0) {
      const AVRational rate = decoder_->context()->framerate;
      step = rate.num > 0 ? av_rescale_q(1, av_inv_q(rate), input_->video()->time_base) : 1;
      if (step <= 0) step = 1;
    }
    next_pts_ = pts + step;
  }

  // A decoded frame: into the filter; whatever the filter has ready goes on.
  void on_decoded(AVFrame* decoded) {
    if (frames_in_ == 0) summary_.decode = decoded->format == AV_PIX_FMT_CUDA ? "nvdec" : "software";
    fix_timestamp(decoded);
    filter_->push(decoded);
    ++frames_in_;
    if (!filter_->conversion_note().empty() && !conversion_noted_) {
      note_(filter_->conversion_note());
      conversion_noted_ = true;
    }
    drain_filter();
    if (o_.max_frames > 0 && frames_in_ >= static_cast<long long>(o_.max_frames)) done_ = true;
  }

  void drain_filter() {
    while (FramePtr out = filter_->pop()) on_filtered(std::move(out));
  }

  // A denoised frame: to the encoder (opened on the first), or nowhere with -f null.
  void on_filtered(FramePtr out) {
    const AVStream* v = input_->video();
    const int64_t start = v->start_time != AV_NOPTS_VALUE ? v->start_time : 0;
    const double media = (out->pts - start) * av_q2d(v->time_base);
    if (output_) {
      if (!encoder_) {
        open_encoder(out.get());
      } else if (out->width != encoder_->context()->width || out->height != encoder_->context()->height) {
        throw Failure(kExitInput, "the video changes size mid-stream (" +
                                      size_text(encoder_->context()->width, encoder_->context()->height) + " to " +
                                      size_text(out->width, out->height) + "): not supported");
      }
      encoder_->send(std::move(out));
      drain_encoder();
    } else if (summary_.frames == 0) {
      summary_.encode = "none";
      announce_path();
    }
    ++summary_.frames;
    summary_.media_seconds = std::max(summary_.media_seconds, media);
    progress_->update(summary_.frames, summary_.media_seconds);
  }

  void open_encoder(const AVFrame* first) {
    std::string fallback;
    encoder_ = std::make_unique<Encoder>(o_, input_->format(), input_->video(), first, gpu_.get(),
                                         output_->needs_global_header(), &fallback);
    summary_.encode = encoder_->path_name();
    if (!fallback.empty()) note_(fallback + "; encoding with " + summary_.encode + " on the CPU");
    output_->set_video(encoder_->context());
    announce_path();
  }

  void announce_path() {
    std::string line = "path: decode " + summary_.decode + ", filter " + std::string(filter_->name()) + ", encode " +
                       summary_.encode;
    if (gpu_) line += " (GPU " + std::to_string(gpu_->index()) + ": " + gpu_->name() + ")";
    note_(line);
  }

  void drain_encoder() {
    while (encoder_->receive(out_pkt_.get())) output_->write_video(out_pkt_.get(), encoder_->context()->time_base);
  }

  // A container that announces its duration in its header (Matroska, MP4)
  // tells a truncated file from a short one: FFmpeg itself reads a cut file
  // to its end without an error.
  void check_complete() const {
    const double announced = input_->announced_seconds();
    if (announced <= 0) return;
    const double got = input_->read_seconds();
    if (got + std::max(0.25, 0.02 * announced) >= announced) return;
    throw Failure(kExitInput, o_.input + " is truncated or damaged: its streams end at " + seconds_text(got) +
                                  " s of the " + seconds_text(announced) +
                                  " s its header announces (--frames N transcodes the readable part)");
  }

  const TranscodeOptions& o_;
  std::function<void(const std::string&)> note_;
  // Destroyed in reverse order: the GPU device outlives everything that uses it.
  std::unique_ptr<GpuDevice> gpu_;
  std::unique_ptr<Input> input_;
  std::unique_ptr<Output> output_;
  std::unique_ptr<Decoder> decoder_;
  std::unique_ptr<FilterStep> filter_;
  std::unique_ptr<Encoder> encoder_;
  std::unique_ptr<Progress> progress_;
  FramePtr frame_;
  PacketPtr out_pkt_;
  Summary summary_;
  int64_t last_pts_ = AV_NOPTS_VALUE;
  int64_t next_pts_ = 0;
  bool pts_repaired_ = false;
  bool conversion_noted_ = false;
  long long frames_in_ = 0;  // decoded frames pushed into the filter
  bool done_ = false;        // --frames reached: read no more
};

}  // namespace

Summary run_transcode(const TranscodeOptions& o, const std::function<void(const std::string&)>& note) {
  Pipeline p(o, note);
  return p.run();
}

}  // namespace cdn::transcode
