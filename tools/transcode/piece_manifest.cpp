// piece_manifest.cpp: the decoded-output description of --manifest (piece_manifest.h).
#include "piece_manifest.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "errors.h"
#include "json.h"

extern "C" {
#include <libavformat/avformat.h>
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

struct InputCloser {
  void operator()(AVFormatContext* f) const { avformat_close_input(&f); }
};

struct Md5Free {
  void operator()(AVMD5* m) const { av_free(m); }
};

}  // namespace

PieceManifest::PieceManifest(const AVCodecContext* encoder) : time_base_(encoder->time_base) {
  if (!avcodec_find_decoder(encoder->codec_id))
    throw Failure(kExitCodec, std::string("--manifest: no decoder for ") + avcodec_get_name(encoder->codec_id));
  codec_ = avcodec_get_name(encoder->codec_id);
}

void PieceManifest::add(const AVPacket* pkt) {
  if (pkt->pts == AV_NOPTS_VALUE) return;
  if (first_pts_ == AV_NOPTS_VALUE || pkt->pts < first_pts_) first_pts_ = pkt->pts;
  if (last_pts_ == AV_NOPTS_VALUE || pkt->pts > last_pts_) last_pts_ = pkt->pts;
}

void PieceManifest::read_back(const std::string& path) {
  const std::string what = "--manifest: reading back " + path + ": ";
  AVFormatContext* raw = nullptr;
  int rc = avformat_open_input(&raw, path.c_str(), nullptr, nullptr);
  if (rc < 0) throw Failure(kExitOutput, what + av_error(rc));
  const std::unique_ptr<AVFormatContext, InputCloser> in(raw);
  int video = -1;
  for (unsigned i = 0; i < in->nb_streams && video < 0; ++i)
    if (in->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) video = static_cast<int>(i);
  if (video < 0) throw Failure(kExitFailure, what + "no video stream");
  const AVStream* st = in->streams[video];
  const AVCodec* dec = avcodec_find_decoder(st->codecpar->codec_id);
  if (!dec) throw Failure(kExitCodec, what + "no decoder for " + avcodec_get_name(st->codecpar->codec_id));
  CodecPtr ctx(avcodec_alloc_context3(dec));
  if (!ctx) throw std::bad_alloc();
  rc = avcodec_parameters_to_context(ctx.get(), st->codecpar);
  ctx->pkt_timebase = st->time_base;
  ctx->thread_count = 0;  // as many as the machine has: the output is the same
  if (rc >= 0) rc = avcodec_open2(ctx.get(), dec, nullptr);
  if (rc < 0) throw Failure(kExitCodec, what + "cannot open a decoder: " + av_error(rc));
  extradata_md5_ = md5_of(st->codecpar->extradata, st->codecpar->extradata ? st->codecpar->extradata_size : 0);

  const std::unique_ptr<AVMD5, Md5Free> whole(av_md5_alloc());
  if (!whole) throw std::bad_alloc();
  av_md5_init(whole.get());
  std::vector<std::uint8_t> packed;
  PacketPtr pkt = alloc_packet();
  FramePtr frame = alloc_frame();
  frame_md5_.clear();
  packet_md5_.clear();
  auto drain = [&] {
    for (;;) {
      const int r = avcodec_receive_frame(ctx.get(), frame.get());
      if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
      if (r < 0) throw Failure(kExitFailure, what + "it does not decode: " + av_error(r));
      const AVFrame* f = frame.get();
      const auto format = static_cast<AVPixelFormat>(f->format);
      const int size = av_image_get_buffer_size(format, f->width, f->height, 1);
      if (size < 0) throw Failure(kExitFailure, what + "a decoded frame has no size: " + av_error(size));
      packed.resize(static_cast<std::size_t>(size));
      av_image_copy_to_buffer(packed.data(), size, f->data, f->linesize, format, f->width, f->height, 1);
      frame_md5_.push_back(md5_of(packed.data(), packed.size()));
      av_md5_update(whole.get(), packed.data(), size);
      width_ = f->width, height_ = f->height, pix_fmt_ = f->format;
      av_frame_unref(frame.get());
    }
  };
  while ((rc = av_read_frame(in.get(), pkt.get())) >= 0) {
    if (pkt->stream_index == video) {
      packet_md5_.push_back(md5_of(pkt->data, static_cast<std::size_t>(pkt->size)));
      rc = avcodec_send_packet(ctx.get(), pkt.get());
      av_packet_unref(pkt.get());
      if (rc < 0) throw Failure(kExitFailure, what + "it does not decode: " + av_error(rc));
      drain();
    } else {
      av_packet_unref(pkt.get());
    }
  }
  if (rc != AVERROR_EOF) throw Failure(kExitOutput, what + av_error(rc));
  avcodec_send_packet(ctx.get(), nullptr);
  drain();
  std::uint8_t sum[16];
  av_md5_final(whole.get(), sum);
  whole_md5_ = hex(sum, 16);
}

void PieceManifest::write(const std::string& path, const std::string& input, const std::string& output,
                          const std::vector<std::int64_t>& range, const std::vector<std::int64_t>& context,
                          std::int64_t end_pts, long long decode_errors) const {
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
                {"frame_md5", frame_md5_},
                {"packet_md5", packet_md5_},
                {"md5", whole_md5_},
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
