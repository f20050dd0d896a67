// transcode.cpp: the transcode loop (transcode.h).
//
// One thread: read a packet; video packets go through decoder -> filter ->
// encoder -> muxer, every other packet straight to the muxer (stream copy).
// Decoded frames keep their timestamps (best_effort_timestamp, in the input
// stream's time base, which is also the encoder's), so frame count, timestamps
// and frame rate come out as they went in. The encoder opens on the first
// denoised frame, and the output header is written then; copied packets read
// before that wait in Output.
//
// Decode errors (decoder.h) are counted and reported, or end the run with
// --fail-on-decode-error. Interlaced input (a field order in the stream, or
// interlaced frames) is encoded interlaced with its field order; what each mode
// does with it is the library's (cudadenoise/interlace.h: the per-frame modes
// filter each field apart, the temporal modes refuse it).
//
// --range A:B (range.h) writes frames [A, B) only, video only: the packets are
// indexed first, the input is seeked to the keyframe before the context's first
// frame, frames before it are dropped, each frame of the context is checked to
// be the one the index expects (its timestamp), the context is filtered and
// frames outside [A, B) are not encoded. --manifest (piece_manifest.h) reads
// the written file back before it gets its name and describes it.
#include "transcode.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "cudadenoise/interlace.h"
#include "decoder.h"
#include "encoder.h"
#include "errors.h"
#include "filter_step.h"
#include "gpu_device.h"
#include "hdr_metadata.h"
#include "input.h"
#include "interrupt.h"
#include "noise_model_report.h"
#include "output.h"
#include "piece_manifest.h"
#include "range.h"
#include "pixel_format.h"
#include "rotation.h"

extern "C" {
#include <libavutil/hwcontext.h>
}

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

  // A note on its own line: a progress line being drawn is ended first.
  void say(const std::string& message) {
    if (progress_) progress_->finish();
    note_(message);
  }
  ~Pipeline() {
    if (progress_) progress_->finish();
  }

  Summary run() {
    input_ = std::make_unique<Input>(o_.input);
    if (o_.has_range()) {
      plan_ = std::make_unique<RangePlan>(plan_range(*input_, o_.range_begin, o_.range_end,
                                                     context_reach(o_.settings, o_.denoise)));
      check_complete();  // the scan read the whole file
      AVFormatContext* ctx = input_->format();
      for (unsigned i = 0; i < ctx->nb_streams; ++i)
        if (static_cast<int>(i) != input_->video_index()) ctx->streams[i]->discard = AVDISCARD_ALL;
      next_index_ = out_index_ = plan_->context_begin;
      range_ = {plan_->begin, plan_->end};
      context_ = {plan_->context_begin, plan_->context_end};
      // The whole video: a plain run (video only), which needs no timestamp to
      // find its frames (a file whose decoder reorders them differently from
      // its packets' timestamps can still be a job's one piece).
      if (plan_->begin == 0 && plan_->end == plan_->frames()) {
        plan_.reset();
        input_->rewind();
      }
    }
    if (!o_.null_output()) output_ = std::make_unique<Output>(*input_, o_);
    open_gpu();
    filter_ = std::make_unique<FilterStep>(o_.settings, o_.denoise, gpu_.get(), o_.gpus);
    if (plan_) {
      seek_video(*input_, plan_->pts[plan_->context_begin]);
    }
    decoder_ = std::make_unique<Decoder>(input_->format(), input_->video(), gpu_.get());
    for (const std::string& n : output_ ? output_->notes() : std::vector<std::string>{}) say(n);
    if (o_.autorotate) plan_rotation();
    if (output_) check_encodable_size();

    const AVStream* video = input_->video();
    const long long nb = video->nb_frames > 0 ? video->nb_frames : 0;
    const long long total = plan_ ? plan_->context_end - plan_->context_begin
                                  : o_.max_frames > 0 ? static_cast<long long>(o_.max_frames) : nb;
    progress_ = std::make_unique<Progress>(!o_.quiet && ::isatty(2), input_->duration_seconds(), total);

    PacketPtr pkt = alloc_packet();
    frame_ = alloc_frame();
    out_pkt_ = alloc_packet();
    while (!done_ && input_->read(pkt.get())) {
      check_interrupted();
      if (pkt->stream_index == input_->video_index()) {
        const long long errors_before = decoder_->errors();
        decoder_->send(pkt.get());
        count_range_errors(errors_before, pkt->pts);
        check_decode_errors();
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
    progress_->update(frames_in_, summary_.frames, summary_.media_seconds);
    if (frames_in_ == 0) throw Failure(kExitInput, o_.input + ": no video frame could be decoded");
    if (plan_ && next_index_ != plan_->context_end)
      throw Failure(kExitInput, o_.input + ": --range: the video ended after frame " + std::to_string(next_index_) +
                                    " of the " + std::to_string(plan_->frames()) + " its packets announce");
    if (filtered_ != frames_in_)
      throw Failure(kExitFailure, "the filter returned " + std::to_string(filtered_) + " frames for " +
                                      std::to_string(frames_in_) + " (a bug)");
    if (encoder_) {
      const AVStream* v = input_->video();
      if (plan_ && plan_->end < plan_->frames())
        encoder_->set_stream_end(plan_->pts[plan_->end]);  // where the next piece starts
      else if (o_.max_frames == 0 && v->duration != AV_NOPTS_VALUE && v->duration > 0)
        encoder_->set_stream_end((v->start_time != AV_NOPTS_VALUE ? v->start_time : 0) + v->duration);
      encoder_->send(nullptr);
      drain_encoder();
    }
    check_interrupted();
    progress_->update(frames_in_, summary_.frames, summary_.media_seconds);
    progress_->finish();
    summary_.decode_errors = decoder_->errors();
    if (summary_.decode_errors > 0)
      say(std::to_string(summary_.decode_errors) + " decode error" + (summary_.decode_errors > 1 ? "s" : "") +
            " (damaged packets or frames) in " + o_.input + ": FFmpeg concealed them, the output shows it there");
    if (o_.max_frames == 0 && !o_.has_range()) check_complete();  // --range: checked after the scan
    if (output_ && manifest_) {
      output_->finish([this](const std::string& written) {
        manifest_->read_back(written);
        if (manifest_->frames() != summary_.frames)
          throw Failure(kExitFailure, "--manifest: the output decodes to " + std::to_string(manifest_->frames()) +
                                          " frames, " + std::to_string(summary_.frames) + " were encoded");
      });
    } else if (output_) {
      output_->finish();
    }
    if (manifest_) {
      const std::int64_t end = plan_ && plan_->end < plan_->frames() ? plan_->pts[plan_->end] : AV_NOPTS_VALUE;
      manifest_->write(o_.manifest, o_.input, output_->target(), range_, context_, end,
                       plan_ ? range_errors_ : decoder_->errors());
    }

    summary_.seconds = progress_->elapsed();
    summary_.filter = filter_->name();
    summary_.host_copies = filter_->host_copies();
    summary_.downloads = encoder_ ? encoder_->downloads() : 0;
    summary_.codec = o_.codec;
    summary_.mode = o_.denoise ? mode_name(o_.settings.mode) : "none";
    summary_.preset = o_.denoise_preset;
    summary_.strength = o_.settings.strength;
    summary_.sigma = filter_->noise_sigma();
    summary_.sigma_estimated = !summary_.sigma.empty() && o_.settings.sigma == 0;
    // A signal or curve model: the model is what the frames were filtered with, not a sigma.
    summary_.noise_models = filter_->noise_models();
    if (!summary_.noise_models.empty()) {
      summary_.sigma.clear();
      summary_.sigma_estimated = false;
      summary_.noise_model = o_.settings.noise_model;
      summary_.noise_model_source = tools::noise_model_source(o_.settings);
    }
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
    if (!gpu_ && o_.verbose) say("no GPU (" + why + "): decoding, denoising and encoding on the CPU");
  }

  void drain_decoder() {
    while (!done_) {
      const long long errors_before = decoder_->errors();
      if (!decoder_->receive(frame_.get())) break;
      count_range_errors(errors_before, frame_->best_effort_timestamp);
      check_decode_errors();
      on_decoded(frame_.get());
      av_frame_unref(frame_.get());
    }
    check_decode_errors();
  }

  // --autorotate: how many clockwise quarter turns the display matrix asks for.
  void plan_rotation() {
    const uint8_t* m = av_stream_get_side_data(input_->video(), AV_PKT_DATA_DISPLAYMATRIX, nullptr);
    const int turns = m ? quarter_turns_of(reinterpret_cast<const int32_t*>(m)) : 0;
    if (turns < 0) {
      say("--autorotate: the display matrix is not a plain rotation by a right angle; it is kept as it is");
      return;
    }
    quarter_turns_ = turns;
    if (turns > 0) say("--autorotate: the picture is turned " + std::to_string(90 * turns) + " degrees clockwise");
  }

  // Before any decoding: the encoder's limits on the frame size (encoder.h).
  void check_encodable_size() const {
    const AVCodecParameters* par = input_->video()->codecpar;
    const bool turned = quarter_turns_ % 2 == 1;
    const std::string problem =
        encoder_size_problem(o_.codec, output_->raw_video(), static_cast<AVPixelFormat>(par->format),
                             turned ? par->height : par->width, turned ? par->width : par->height);
    if (!problem.empty()) throw Failure(kExitUsage, problem);
  }

  // A denoised frame turned upright (on the host: CUDA frames are downloaded first).
  FramePtr turned(FramePtr f) {
    if (quarter_turns_ == 0) return f;
    if (field_order_ != AV_FIELD_PROGRESSIVE)
      throw Failure(kExitUsage, "--autorotate cannot turn interlaced video: its fields would become columns");
    if (f->format == AV_PIX_FMT_CUDA) {
      FramePtr host = alloc_frame();
      int rc = av_hwframe_transfer_data(host.get(), f.get(), 0);
      if (rc >= 0) rc = av_frame_copy_props(host.get(), f.get());
      if (rc < 0) throw Failure(kExitGpu, "cannot download a frame to turn it: " + av_error(rc));
      f = std::move(host);
    }
    return rotate_frame(f.get(), quarter_turns_);
  }

  // --range: the decode errors of the packets and frames whose timestamps are
  // in the written span [pts of A, pts of B) (open at the video's ends), for
  // the manifest: the context and the packets decoded ahead belong to the
  // neighbouring pieces, so a job's pieces add up to a whole run's count. An
  // error with no timestamp (a frame the decoder gave up on) is not counted:
  // the piece that needs that frame fails its frame check.
  void count_range_errors(long long before, int64_t pts) {
    if (!plan_ || pts == AV_NOPTS_VALUE || decoder_->errors() == before) return;
    if (plan_->begin > 0 && pts < plan_->pts[plan_->begin]) return;
    if (plan_->end < plan_->frames() && pts >= plan_->pts[plan_->end]) return;
    range_errors_ += decoder_->errors() - before;
  }

  // The first decode error is said at once; with --fail-on-decode-error it ends the run.
  void check_decode_errors() {
    if (decoder_->errors() == 0 || decode_error_noted_) return;
    decode_error_noted_ = true;
    const std::string what = o_.input + ": decode error: " + decoder_->first_error();
    if (o_.fail_on_decode_error) throw Failure(kExitInput, what + " (--fail-on-decode-error)");
    say(what + "; FFmpeg conceals it and the transcode goes on (--fail-on-decode-error stops instead)");
  }

  // Interlaced input, decided on the first frame: the stream's field order,
  // else the frame's own flags. Never relabelled as progressive.
  void check_interlacing(const AVFrame* first) {
    if (interlacing_checked_) return;
    interlacing_checked_ = true;
    const AVFieldOrder declared = input_->video()->codecpar->field_order;
    if (declared != AV_FIELD_UNKNOWN && declared != AV_FIELD_PROGRESSIVE)
      field_order_ = declared;
    else if (first->interlaced_frame)
      field_order_ = first->top_field_first ? AV_FIELD_TT : AV_FIELD_BB;
    if (field_order_ == AV_FIELD_PROGRESSIVE) return;
    static const char* kNames[] = {"unknown", "progressive", "tt", "bb", "tb", "bt"};
    const std::string order = kNames[field_order_];
    if (!o_.denoise) return;
    // What each mode does with interlaced input is the library's (interlace.h).
    if (interlaced_input(o_.settings.mode) == InterlacedInput::Refuse)
      throw Failure(kExitUsage, o_.input + " is interlaced (field order " + order + "): --mode " +
                                    interlaced_refusal(o_.settings.mode, "e.g. ffmpeg -vf bwdif"));
    // The layout the fields are cut from: the frame's, or the one it is converted to.
    PixelFormat layout;
    const auto* hw = first->hw_frames_ctx ? reinterpret_cast<const AVHWFramesContext*>(first->hw_frames_ctx->data) : nullptr;
    const AVPixelFormat f = hw ? hw->sw_format : static_cast<AVPixelFormat>(first->format);
    if (!cdn_format_of(f, &layout)) cdn_format_of(conversion_target(f), &layout);
    if (!fields_fit(layout, first->height))
      throw Failure(kExitInput, o_.input + " is interlaced with " + fields_misfit(layout, first->height));
    filter_->set_fields(true);
    say("the input is interlaced (field order " + order + "): each field is filtered on its own and the output "
          "is encoded interlaced");
  }

  // Timestamps as decoded; only a missing or non-increasing pts is repaired
  // (encoders reject them), with a note.
  void fix_timestamp(AVFrame* f) {
    int64_t pts = f->best_effort_timestamp;
    if (pts == AV_NOPTS_VALUE) pts = next_pts_;
    if (last_pts_ != AV_NOPTS_VALUE && pts <= last_pts_) {
      if (!pts_repaired_) say("the input has non-increasing video timestamps; repaired");
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
    frame_step_ = step;
  }

  // A decoded frame: into the filter; whatever the filter has ready goes on.
  void on_decoded(AVFrame* decoded) {
    if (plan_) {
      const int64_t pts = decoded->best_effort_timestamp;
      const int64_t want = plan_->pts[next_index_];
      // Frames the seek brought before the context are dropped.
      if (next_index_ == plan_->context_begin && (pts == AV_NOPTS_VALUE || pts < want)) return;
      if (pts != want)
        throw Failure(kExitInput, o_.input + ": --range: frame " + std::to_string(next_index_) + " decodes with "
                                      "timestamp " + std::to_string(pts) + ", its packet had " + std::to_string(want) +
                                      " (frames dropped or reordered by the decoder): this input cannot be cut "
                                      "exactly");
      ++next_index_;
    }
    if (frames_in_ == 0) {
      summary_.decode = decoded->format == AV_PIX_FMT_CUDA ? "nvdec" : "software";
      check_interlacing(decoded);
      announce_early();
    }
    fix_timestamp(decoded);
    filter_->push(decoded);
    ++frames_in_;
    if (filter_->noise_changed())
      say("noise sigma " + sigma_text(filter_->noise_sigma()) + " (tracked over " +
          std::to_string(filter_->noise_frames()) + " measured frames, 8-bit code values per component)");
    note_noise_model();
    if (!filter_->conversion_note().empty() && !conversion_noted_) {
      say(filter_->conversion_note());
      conversion_noted_ = true;
    }
    drain_filter();
    progress_->update(frames_in_, summary_.frames, summary_.media_seconds);  // after the burst, not in it
    if (o_.max_frames > 0 && frames_in_ >= static_cast<long long>(o_.max_frames)) done_ = true;
    if (plan_ && next_index_ == plan_->context_end) done_ = true;
  }

  // With a signal or curve model: its values when first known and whenever they change.
  void note_noise_model() {
    const std::vector<NoiseModel> models = filter_->noise_models();
    std::vector<double> values;
    for (const NoiseModel& m : models) values.insert(values.end(), {m.a, m.b});
    if (models.empty() || values == said_model_) return;
    said_model_ = values;
    say("noise model " + tools::noise_models_text(o_.settings.noise_model, models) + " (" +
        tools::noise_model_source(o_.settings) + "; var = a x + b per component, 8-bit code values)");
  }

  void drain_filter() {
    while (FramePtr out = filter_->pop()) on_filtered(std::move(out));
  }

  // A denoised frame: to the encoder (opened on the first), or nowhere with -f null.
  void on_filtered(FramePtr out) {
    ++filtered_;
    if (plan_) {
      const int64_t index = out_index_++;
      if (index < plan_->begin || index >= plan_->end) return;  // the context around the range
    }
    const AVStream* v = input_->video();
    const int64_t start = v->start_time != AV_NOPTS_VALUE ? v->start_time : 0;
    // Media time done: the end of this frame (its pts plus its duration), so 30 frames at 30 fps are 1.00 s.
    const int64_t length = out->pkt_duration > 0 ? out->pkt_duration : frame_step_;
    const double media = (out->pts + length - start) * av_q2d(v->time_base);
    if (output_) {
      out = turned(std::move(out));
      if (!encoder_) {
        open_encoder(out.get());
      } else if (out->width != encoder_->context()->width || out->height != encoder_->context()->height) {
        throw Failure(kExitInput, "the video changes size mid-stream (" +
                                      size_text(encoder_->context()->width, encoder_->context()->height) + " to " +
                                      size_text(out->width, out->height) + "): not supported");
      }
      encoder_->send(std::move(out));
      drain_encoder();
    }
    ++summary_.frames;
    summary_.media_seconds = std::max(summary_.media_seconds, media);
  }

  void open_encoder(const AVFrame* first) {
    std::string fallback;
    encoder_ = std::make_unique<Encoder>(o_, input_->format(), input_->video(), first, gpu_.get(),
                                         output_->needs_global_header(), &fallback, field_order_,
                                         output_->raw_video());
    summary_.encode = encoder_->path_name();
    if (!fallback.empty()) say(fallback + "; encoding with " + summary_.encode + " on the CPU");
    const HdrMetadata hdr = hdr_metadata_of(first, input_->video());
    const std::string hdr_note = hdr_dropped_note(hdr, encoder_->context()->codec->name, output_->format_name());
    if (!hdr_note.empty()) {
      say(hdr_note);
      summary_.notes.push_back(hdr_note);
    }
    output_->set_video(encoder_->context(), hdr);
    if (!o_.manifest.empty()) manifest_ = std::make_unique<PieceManifest>(encoder_->context());
    announce_path();
  }

  // The path at the first decoded frame, before any filtering (a temporal
  // window on the CPU may take minutes to give its first frame): whole with -f
  // null; with an output the encoder opens with the first denoised frame (its
  // format and size), and announce_path() then gives the whole line.
  void announce_early() {
    if (!output_) {
      summary_.encode = "none";
      announce_path();
      return;
    }
    say("path: decode " + summary_.decode + ", filter " + std::string(filter_->name()) + gpu_text() +
        "; the encoder opens with the first denoised frame");
  }

  void announce_path() {
    say("path: decode " + summary_.decode + ", filter " + std::string(filter_->name()) + ", encode " + summary_.encode +
        gpu_text());
  }

  std::string gpu_text() const {
    return gpu_ ? " (GPU " + std::to_string(gpu_->index()) + ": " + gpu_->name() + ")" : "";
  }

  void drain_encoder() {
    while (encoder_->receive(out_pkt_.get())) {
      if (manifest_) manifest_->add(out_pkt_.get());
      output_->write_video(out_pkt_.get(), encoder_->context()->time_base);
    }
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
  std::unique_ptr<RangePlan> plan_;           // --range
  std::unique_ptr<PieceManifest> manifest_;   // --manifest
  std::vector<std::int64_t> range_, context_;  // --range: [A, B) and the context, for the manifest
  int64_t next_index_ = 0;  // --range: the frame the next decoded frame must be
  int64_t out_index_ = 0;   // --range: the frame the next filtered frame is
  long long filtered_ = 0;  // frames out of the filter (written or not)
  bool interlacing_checked_ = false;
  FramePtr frame_;
  PacketPtr out_pkt_;
  Summary summary_;
  int64_t last_pts_ = AV_NOPTS_VALUE;
  int64_t next_pts_ = 0;
  int64_t frame_step_ = 0;
  int quarter_turns_ = 0;  // --autorotate  // the last frame's duration, for frames that carry none
  bool pts_repaired_ = false;
  bool decode_error_noted_ = false;
  long long range_errors_ = 0;  // --range: the decode errors of the written span (count_range_errors)
  AVFieldOrder field_order_ = AV_FIELD_PROGRESSIVE;
  bool conversion_noted_ = false;
  std::vector<double> said_model_;  // the noise model last said (each component's a, b)
  long long frames_in_ = 0;  // decoded frames pushed into the filter
  bool done_ = false;        // --frames reached: read no more
};

}  // namespace

Summary run_transcode(const TranscodeOptions& o, const std::function<void(const std::string&)>& note) {
  Pipeline p(o, note);
  return p.run();
}

}  // namespace cdn::transcode
