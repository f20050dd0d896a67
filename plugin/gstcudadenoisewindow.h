/* gstcudadenoisewindow.h: cudadenoise's temporal path: a cdn::StreamDenoiser
 * that holds a window of frames, fed from submit_input_buffer, one output buffer
 * per input buffer, in order. What stays here is GStreamer's side: mapping
 * buffers and output buffers from the negotiated pool. Each frame's tag in the
 * stream (cdn::FrameTag) is a buffer without memory that carries its input's
 * timestamps, offsets, flags and metas to its output. When a frame is ready, how
 * the window catches up after a refused push and how it drains are the
 * library's (stream_pump.h).
 *
 * Every frame of a window leaves the element by one path (OutputSink::take in
 * the .cpp): its input's metadata, its end noted for POSITION queries, then
 * gst_pad_push; whether it is ready after an input, left over from a refused
 * push (the catch-up) or drained at the end of a stream. GstBaseTransform's
 * chain pushes none of them (it pushes the per-frame modes' frames). */
#pragma once

#include <atomic>
#include <memory>

#include "cudadenoise/stream_denoiser.h"
#include "gstcdnbasetransform.h"


struct GstCdnBufferUnref
{
  void operator() (GstBuffer * b) const { gst_buffer_unref (b); }
};
using GstCdnBufferPtr = std::unique_ptr<GstBuffer, GstCdnBufferUnref>;

/* All calls on the streaming thread; each pushes the element's CUDA context. */
class GstCudaDenoiseWindow
{
public:
  /* `out_end` (the element's, outliving the window) receives the end (PTS +
   * duration) of each frame sent out, which GstBaseTransform's chain would
   * have kept for POSITION queries had it pushed the frame. */
  explicit GstCudaDenoiseWindow (std::atomic<GstClockTime> * out_end) : out_end_ (out_end) {}

  /* Frames a refused push left ready go downstream first (their pushes'
   * results do not matter any more); then `inbuf` (a reference is kept only for
   * its metadata) goes into the window, and every frame ready after it goes
   * downstream. Returns the last of those pushes' results, or an error. */
  GstFlowReturn push (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream, GstBuffer * inbuf,
      bool cuda_backend);
  /* End of the stream: every held frame downstream, in order; the next push
   * starts a new stream. */
  GstFlowReturn drain (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream, bool cuda_backend);
  /* Flush: the held frames are dropped. */
  void flush (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream);

private:
  std::atomic<GstClockTime> *out_end_;
  guint64 in_ = 0, out_ = 0;  /* frames of the current stream, for the log */
};
