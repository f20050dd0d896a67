// piece_manifest.cpp: the decoded-output description of --manifest (piece_manifest.h).
#include "piece_manifest.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "errors.h"
#include "json.h"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/md5.h>
#include <libavutil/pixdesc.h>
}

namespace cdn::transcode {

namespace {

std::string hex(const std::uint8_t* d, int n) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < n; ++i) s += kDigits[d[i] >> 4], s += kDigits[d[i] & 15];
  return s;
}

std::string md5_of(const std::uint8_t* data, std::size_t size) {
  std::uint8_t sum[16];
  av_md5_sum(sum, data, static_cast<int>(size));
  return hex(sum, 16);
}

}  // namespace

PieceManifest::PieceManifest(const AVCodecContext* encoder) : time_base_(encoder->time_base) {
  const AVCodec* dec = avcodec_find_decoder(encoder->codec_id);
  if (!dec) throw Failure(kExitCodec, std::string("--manifest: no decoder for ") + avcodec_get_name(encoder->codec_id));
  ctx_.reset(avcodec_alloc_context3(dec));
  if (!ctx_) throw std::bad_alloc();
  AVCodecParameters* par = avcodec_parameters_alloc();
  if (!par) throw std::bad_alloc();
  int rc = avcodec_parameters_from_context(par, encoder);
  if (rc >= 0) rc = avcodec_parameters_to_context(ctx_.get(), par);
  avcodec_parameters_free(&par);
  ctx_->pkt_timebase = encoder->time_base;
  ctx_->thread_count = 1;
  if (rc >= 0) rc = avcodec_open2(ctx_.get(), dec, nullptr);
  if (rc < 0) throw Failure(kExitCodec, "--manifest: cannot open a decoder for the output: " + av_error(rc));
  codec_ = avcodec_get_name(encoder->codec_id);
  extradata_md5_ = md5_of(encoder->extradata, encoder->extradata ? encoder->extradata_size : 0);
  frame_ = alloc_frame();
  whole_ = av_md5_alloc();
  if (!whole_) throw std::bad_alloc();
  av_md5_init(whole_);
}

PieceManifest::~PieceManifest() { av_freep(&whole_); }

void PieceManifest::add(const AVPacket* pkt) {
  const int rc = avcodec_send_packet(ctx_.get(), pkt);
  if (rc < 0) throw Failure(kExitFailure, "--manifest: the output's own packets do not decode: " + av_error(rc));
  drain();
}

void PieceManifest::finish() {
  avcodec_send_packet(ctx_.get(), nullptr);
  drain();
}

void PieceManifest::drain() {
  for (;;) {
    const int rc = avcodec_receive_frame(ctx_.get(), frame_.get());
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return;
    if (rc < 0) throw Failure(kExitFailure, "--manifest: the output's own packets do not decode: " + av_error(rc));
    AVFrame* f = frame_.get();
    const int size = av_image_get_buffer_size(static_cast<AVPixelFormat>(f->format), f->width, f->height, 1);
    if (size < 0) throw Failure(kExitFailure, "--manifest: a decoded frame has no size: " + av_error(size));
    packed_.resize(static_cast<std::size_t>(size));
    av_image_copy_to_buffer(packed_.data(), size, f->data, f->linesize, static_cast<AVPixelFormat>(f->format),
                            f->width, f->height, 1);
    md5_.push_back(md5_of(packed_.data(), packed_.size()));
    av_md5_update(whole_, packed_.data(), size);
    const std::int64_t pts = f->best_effort_timestamp;
    if (first_pts_ == AV_NOPTS_VALUE) first_pts_ = pts;
    last_pts_ = pts;
    width_ = f->width, height_ = f->height, pix_fmt_ = f->format;
    av_frame_unref(f);
  }
}

void PieceManifest::write(const std::string& path, const std::string& input, const std::string& output,
                          const std::vector<std::int64_t>& range, const std::vector<std::int64_t>& context,
                          std::int64_t end_pts, long long decode_errors) const {
  AVMD5* copy = av_md5_alloc();
  if (!copy) throw std::bad_alloc();
  // The running sum ends here: a copy of its state, so write() may be called again.
  std::memcpy(copy, whole_, av_md5_size);
  std::uint8_t sum[16];
  av_md5_final(copy, sum);
  av_free(copy);
  const char* fmt = pix_fmt_ >= 0 ? av_get_pix_fmt_name(static_cast<AVPixelFormat>(pix_fmt_)) : nullptr;
  tools::Json j{{"input", input},
                {"output", output},
                {"frames", frames()},
                {"time_base", {time_base_.num, time_base_.den}},
                {"first_pts", first_pts_},
                {"last_pts", last_pts_},
                {"end_pts", nullptr},
                {"pix_fmt", fmt ? fmt : ""},
                {"width", width_},
                {"height", height_},
                {"codec", codec_},
                {"extradata_md5", extradata_md5_},
                {"frame_md5", md5_},
                {"md5", hex(sum, 16)},
                {"decode_errors", decode_errors}};
  if (end_pts != AV_NOPTS_VALUE) j["end_pts"] = end_pts;
  struct stat st;
  if (::stat(output.c_str(), &st) == 0) j["output_bytes"] = static_cast<long long>(st.st_size);
  if (!range.empty()) j["range"] = range;
  if (!context.empty()) j["context"] = context;
  const std::string temp = path + ".part";
  {
    std::ofstream f(temp, std::ios::trunc);
    f << tools::json_line(j) << "\n";
    f.close();
    if (!f) {
      std::remove(temp.c_str());
      throw Failure(kExitOutput, "cannot write the manifest " + path);
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw Failure(kExitOutput, "cannot write the manifest " + path);
  }
}

}  // namespace cdn::transcode
