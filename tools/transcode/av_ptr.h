// av_ptr.h: owning pointers for FFmpeg's objects, so that every early exit
// (a Failure, Ctrl-C) frees what was made.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/buffer.h>
#include <libavutil/frame.h>
}

#include <memory>
#include <new>

namespace cdn::transcode {

struct AvDeleter {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
  void operator()(AVPacket* p) const { av_packet_free(&p); }
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
  void operator()(AVBufferRef* b) const { av_buffer_unref(&b); }
};

using FramePtr = std::unique_ptr<AVFrame, AvDeleter>;
using PacketPtr = std::unique_ptr<AVPacket, AvDeleter>;
using CodecPtr = std::unique_ptr<AVCodecContext, AvDeleter>;
using BufferPtr = std::unique_ptr<AVBufferRef, AvDeleter>;

inline FramePtr alloc_frame() {
  AVFrame* f = av_frame_alloc();
  if (!f) throw std::bad_alloc();
  return FramePtr(f);
}

inline PacketPtr alloc_packet() {
  AVPacket* p = av_packet_alloc();
  if (!p) throw std::bad_alloc();
  return PacketPtr(p);
}

// A new reference to `ref` (nullptr stays nullptr).
inline BufferPtr ref_buffer(AVBufferRef* ref) {
  if (!ref) return nullptr;
  AVBufferRef* r = av_buffer_ref(ref);
  if (!r) throw std::bad_alloc();
  return BufferPtr(r);
}

}  // namespace cdn::transcode
