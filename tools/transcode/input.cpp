// input.cpp: opening and reading INPUT with libavformat (input.h).
#include "input.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "errors.h"
#include "interrupt.h"
#include "output_path.h"

namespace cdn::transcode {

namespace {

double start_seconds(const AVFormatContext* ctx) {
  return ctx->start_time == AV_NOPTS_VALUE ? 0.0 : ctx->start_time / double(AV_TIME_BASE);
}

bool is_video(const AVStream* st) { return st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO; }
bool is_cover_art(const AVStream* st) { return st->disposition & AV_DISPOSITION_ATTACHED_PIC; }

}  // namespace

Input::Input(const std::string& path) : path_(path), pipe_(tools::is_pipe_name(path)) {
  // Say plainly what is wrong with the path before FFmpeg tries protocols on it.
  struct stat st;
  if (!pipe_ && ::stat(path.c_str(), &st) != 0) throw Failure(kExitInput, path + ": " + std::strerror(errno));
  if (!pipe_ && S_ISDIR(st.st_mode)) throw Failure(kExitInput, path + ": is a directory");
  const std::string url = path == "-" ? "pipe:0" : path;  // "-" is standard input, as for ffmpeg

  ctx_ = avformat_alloc_context();
  if (!ctx_) throw std::bad_alloc();
  ctx_->interrupt_callback.callback = avio_interrupt_callback;
  int rc = avformat_open_input(&ctx_, url.c_str(), nullptr, nullptr);  // frees ctx_ on failure
  if (rc < 0) {
    check_interrupted();
    throw Failure(kExitInput, path + ": " + av_error(rc));
  }
  rc = avformat_find_stream_info(ctx_, nullptr);
  if (rc < 0) {
    check_interrupted();
    throw Failure(kExitInput, path + ": cannot read the stream parameters: " + av_error(rc));
  }
  int first_real = -1;
  bool cover_art = false;
  for (unsigned i = 0; i < ctx_->nb_streams; ++i) {
    const AVStream* s = ctx_->streams[i];
    if (is_video(s) && is_cover_art(s)) cover_art = true;
    if (is_video(s) && !is_cover_art(s) && first_real < 0) first_real = static_cast<int>(i);
  }
  if (first_real < 0)
    throw Failure(kExitInput, path + (cover_art ? ": no video stream (only an attached picture, cover art)"
                                                : ": no video stream"));
  const AVCodec* decoder = nullptr;
  rc = av_find_best_stream(ctx_, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
  if (rc >= 0 && is_cover_art(ctx_->streams[rc])) rc = first_real;  // never the cover art
  if (rc == AVERROR_DECODER_NOT_FOUND || (rc >= 0 && !avcodec_find_decoder(ctx_->streams[rc]->codecpar->codec_id))) {
    // The video stream has no decoder: name its codec.
    const AVCodecID id = ctx_->streams[rc >= 0 ? rc : first_real]->codecpar->codec_id;
    throw Failure(kExitCodec, path + (id == AV_CODEC_ID_NONE ? std::string(": the video codec is unknown to FFmpeg")
                                                             : std::string(": no decoder for the video codec '") +
                                                                   avcodec_get_name(id) + "'"));
  }
  if (rc < 0) rc = first_real;
  video_index_ = rc;
}

Input::~Input() { avformat_close_input(&ctx_); }

bool Input::read(AVPacket* pkt) {
  const int rc = av_read_frame(ctx_, pkt);
  if (rc == AVERROR_EOF && !(ctx_->pb && ctx_->pb->error < 0)) return false;
  if (rc < 0) {
    check_interrupted();
    const int err = rc == AVERROR_EOF ? ctx_->pb->error : rc;
    const bool mp4 = std::strstr(ctx_->iformat->name, "mov") || std::strstr(ctx_->iformat->name, "mp4");
    throw Failure(kExitInput, path_ + ": read error: " + av_error(err) +
                                  (pipe_ && mp4 ? ". An MP4 or MOV whose index follows its media cannot be read from "
                                                  "a pipe: give the file itself, or remux it with -movflags +faststart"
                                                : ""));
  }
  const AVStream* st = ctx_->streams[pkt->stream_index];
  const int64_t ts = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
  if (ts != AV_NOPTS_VALUE) {
    const double end = (ts + pkt->duration) * av_q2d(st->time_base) - start_seconds(ctx_);
    if (end > read_end_) read_end_ = end;
  }
  return true;
}

double Input::announced_seconds() const {
  if (ctx_->duration == AV_NOPTS_VALUE || ctx_->duration <= 0) return -1;
  if (ctx_->duration_estimation_method != AVFMT_DURATION_FROM_STREAM) return -1;
  return ctx_->duration / double(AV_TIME_BASE);
}

double Input::duration_seconds() const {
  if (ctx_->duration == AV_NOPTS_VALUE || ctx_->duration <= 0) return -1;
  return ctx_->duration / double(AV_TIME_BASE);
}

void Input::rewind() {
  const int rc = avformat_seek_file(ctx_, -1, INT64_MIN, INT64_MIN, INT64_MIN, 0);
  if (rc < 0) throw Failure(kExitInput, path_ + ": cannot go back to the start: " + av_error(rc));
  read_end_ = 0;
}

}  // namespace cdn::transcode
