// y4m.cpp: YUV4MPEG2 reading and writing through FFmpeg's libavformat (y4m.h):
// the yuv4mpegpipe demuxer gives one rawvideo packet per frame (planes packed,
// rows unpadded); the muxer of FFmpeg 5.1 takes wrapped AVFrames, made by
// libavcodec's wrapped_avframe encoder.
#include "y4m.h"

#include <cstdio>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace cdn::eval {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) { throw Y4mError(path + ": " + why); }

std::string av_error(int err) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(err, buf, sizeof buf);
  return buf;
}

AVPixelFormat av_format(PixelFormat f) {
  switch (f) {
    case PixelFormat::GRAY8: return AV_PIX_FMT_GRAY8;
    case PixelFormat::I420: return AV_PIX_FMT_YUV420P;
    case PixelFormat::Y444: return AV_PIX_FMT_YUV444P;
    default: throw Y4mError(std::string("y4m cannot hold ") + format_name(f));
  }
}

void check_frame(const std::string& path, const Y4mInfo& info, const FrameView& frame) {
  if (frame.format != info.format || frame.width != info.width || frame.height != info.height)
    fail(path, "frame does not match the stream's format and size");
}

}  // namespace

void Y4mReader::Close::operator()(AVFormatContext* c) const { avformat_close_input(&c); }
void Y4mReader::Close::operator()(AVPacket* p) const { av_packet_free(&p); }

Y4mReader::Y4mReader(const std::string& path) : path_(path), packet_(av_packet_alloc()) {
  AVFormatContext* ctx = nullptr;
  const int err = avformat_open_input(&ctx, path.c_str(), av_find_input_format("yuv4mpegpipe"), nullptr);
  if (err == AVERROR(ENOENT) || err == AVERROR(EACCES)) fail(path, av_error(err));
  if (err < 0) fail(path, "not a y4m file that libavformat can read (" + av_error(err) + ")");
  format_.reset(ctx);
  if (!packet_ || ctx->nb_streams != 1) fail(path, "not a y4m stream");
  const AVStream* st = ctx->streams[0];
  const AVCodecParameters* par = st->codecpar;
  switch (par->format) {
    case AV_PIX_FMT_GRAY8: info_.format = PixelFormat::GRAY8; break;
    case AV_PIX_FMT_YUV420P: info_.format = PixelFormat::I420; break;
    case AV_PIX_FMT_YUV444P: info_.format = PixelFormat::Y444; break;
    default: {
      const char* name = av_get_pix_fmt_name(static_cast<AVPixelFormat>(par->format));
      fail(path, std::string("pixel format ") + (name ? name : "?") + " is not supported (mono, 420*, 444; 8 bits)");
    }
  }
  if (par->field_order != AV_FIELD_PROGRESSIVE && par->field_order != AV_FIELD_UNKNOWN)
    fail(path, "interlaced streams are not supported");
  info_.width = par->width, info_.height = par->height;
  info_.fps_num = st->avg_frame_rate.num, info_.fps_den = st->avg_frame_rate.den;
  if (info_.width <= 0 || info_.height <= 0) fail(path, "bad size");
  if (info_.fps_num <= 0 || info_.fps_den <= 0) fail(path, "bad frame rate");
  info_.range = par->color_range == AVCOL_RANGE_JPEG ? Range::Full
                : par->color_range == AVCOL_RANGE_MPEG ? Range::Limited : Range::Unknown;
  frame_bytes_ = av_image_get_buffer_size(av_format(info_.format), info_.width, info_.height, 1);
  if (frame_bytes_ <= 0) fail(path, "bad size");
  end_ = avio_tell(ctx->pb);
  // A header that announces more than the file holds fails here, before a
  // caller allocates frames of that size (pipes, of unknown size, fail at read()).
  const std::int64_t size = avio_size(ctx->pb);
  if (size >= 0 && size - end_ < frame_bytes_ + 6)
    fail(path, "no whole frame: the header announces " + std::to_string(info_.width) + "x" +
                   std::to_string(info_.height) + " (" + std::to_string(frame_bytes_) + " bytes a frame), the file has " +
                   std::to_string(size - end_) + " bytes after it");
}

Y4mReader::~Y4mReader() = default;

bool Y4mReader::read(const FrameView& frame) {
  check_frame(path_, info_, frame);
  AVPacket* pkt = packet_.get();
  av_packet_unref(pkt);
  const int err = av_read_frame(format_.get(), pkt);
  if (err == AVERROR_EOF) {
    // The demuxer reports a cut-off last frame as the end: whatever follows the last whole frame.
    if (avio_size(format_->pb) > end_) fail(path_, "truncated frame");
    return false;
  }
  if (err < 0) fail(path_, av_error(err));
  if (pkt->size != frame_bytes_) fail(path_, "truncated frame");
  end_ = pkt->pos + pkt->size;
  std::uint8_t* src[4];
  int src_pitch[4];
  const AVPixelFormat f = av_format(info_.format);
  av_image_fill_arrays(src, src_pitch, pkt->data, f, info_.width, info_.height, 1);
  for (int p = 0; p < format_info(frame.format).planes; ++p)
    av_image_copy_plane(static_cast<std::uint8_t*>(frame.data[p]), static_cast<int>(frame.pitch[p]), src[p],
                        src_pitch[p], static_cast<int>(plane_row_bytes(frame.format, frame.width, p)),
                        plane_height(frame.format, frame.height, p));
  return true;
}

void Y4mWriter::Close::operator()(AVFormatContext* c) const {
  avio_closep(&c->pb);
  avformat_free_context(c);
}
void Y4mWriter::Close::operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
void Y4mWriter::Close::operator()(AVPacket* p) const { av_packet_free(&p); }
void Y4mWriter::Close::operator()(AVFrame* f) const { av_frame_free(&f); }

Y4mWriter::Y4mWriter(const std::string& path, const Y4mInfo& info)
    : path_(path), tmp_(path + ".part"), info_(info), packet_(av_packet_alloc()), frame_(av_frame_alloc()) {
  AVFormatContext* ctx = nullptr;
  int err = avformat_alloc_output_context2(&ctx, nullptr, "yuv4mpegpipe", tmp_.c_str());
  if (err < 0) fail(tmp_, av_error(err));
  format_.reset(ctx);
  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_WRAPPED_AVFRAME);
  encoder_.reset(codec ? avcodec_alloc_context3(codec) : nullptr);
  AVStream* st = avformat_new_stream(ctx, nullptr);
  if (!encoder_ || !st || !packet_ || !frame_) fail(tmp_, "cannot set up the y4m muxer");
  AVCodecContext* enc = encoder_.get();
  enc->pix_fmt = av_format(info.format);
  enc->width = info.width, enc->height = info.height;
  enc->time_base = {info.fps_den, info.fps_num};
  enc->framerate = {info.fps_num, info.fps_den};
  enc->sample_aspect_ratio = {1, 1};
  enc->field_order = AV_FIELD_PROGRESSIVE;
  enc->color_range = info.range == Range::Full ? AVCOL_RANGE_JPEG
                     : info.range == Range::Limited ? AVCOL_RANGE_MPEG : AVCOL_RANGE_UNSPECIFIED;
  if ((err = avcodec_open2(enc, codec, nullptr)) < 0 || (err = avcodec_parameters_from_context(st->codecpar, enc)) < 0)
    fail(tmp_, av_error(err));
  st->time_base = enc->time_base;
  if ((err = avio_open(&ctx->pb, tmp_.c_str(), AVIO_FLAG_WRITE)) < 0) fail(tmp_, av_error(err));
  if ((err = avformat_write_header(ctx, nullptr)) < 0) {
    format_.reset();
    std::remove(tmp_.c_str());
    fail(tmp_, av_error(err));
  }
}

Y4mWriter::~Y4mWriter() {
  if (format_) {
    format_.reset();
    std::remove(tmp_.c_str());
  }
}

void Y4mWriter::write(const FrameView& frame) {
  check_frame(path_, info_, frame);
  AVFrame* f = frame_.get();  // points at our planes; the encoder copies them into its own buffer
  f->format = encoder_->pix_fmt, f->width = info_.width, f->height = info_.height;
  for (int p = 0; p < format_info(frame.format).planes; ++p)
    f->data[p] = static_cast<std::uint8_t*>(frame.data[p]), f->linesize[p] = static_cast<int>(frame.pitch[p]);
  f->pts = frames_++;
  int err = avcodec_send_frame(encoder_.get(), f);
  if (err >= 0) err = avcodec_receive_packet(encoder_.get(), packet_.get());
  if (err >= 0) {
    av_packet_rescale_ts(packet_.get(), encoder_->time_base, format_->streams[0]->time_base);
    err = av_write_frame(format_.get(), packet_.get());
    av_packet_unref(packet_.get());
  }
  if (err < 0) fail(tmp_, "write failed: " + av_error(err));
}

void Y4mWriter::close() {
  if (!format_) return;
  int err = av_write_trailer(format_.get());
  if (err >= 0) err = avio_closep(&format_->pb);
  if (err < 0) fail(tmp_, "write failed: " + av_error(err));
  format_.reset();
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail(path_, "cannot rename " + tmp_ + " to it");
}

Clip read_y4m(const std::string& path) {
  Y4mReader r(path);
  Clip c;
  c.info = r.info();
  for (;;) {
    HostFrame f(c.info.format, c.info.width, c.info.height);
    if (!r.read(f.view())) break;
    c.frames.push_back(std::move(f));
  }
  if (c.frames.empty()) fail(path, "no frames");
  return c;
}

HostFrame read_y4m_frame(const std::string& path, int index, Y4mInfo* info) {
  Y4mReader r(path);
  HostFrame f(r.info().format, r.info().width, r.info().height);
  for (int i = 0; i <= index; ++i)
    if (!r.read(f.view())) fail(path, "has no frame " + std::to_string(index));
  if (info) *info = r.info();
  return f;
}

void write_y4m(const std::string& path, const Y4mInfo& info, const std::vector<HostFrame>& frames) {
  Y4mWriter w(path, info);
  for (const HostFrame& f : frames) w.write(f.view());
  w.close();
}

}  // namespace cdn::eval
