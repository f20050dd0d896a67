/* gstcudadenoisewindow.h: cudadenoise's temporal path: a cdn::StreamDenoiser
 * that holds a window of frames, fed from submit_input_buffer and emptied by
 * generate_output, one output buffer per input buffer, in order. What stays here
 * is GStreamer's side: mapping buffers and output buffers from the negotiated
 * pool. Each frame's tag in the stream (cdn::FrameTag) is a buffer without
 * memory that carries its input's timestamps, offsets, flags and metas to its
 * output. When a frame is ready, how the window catches up after a refused push
 * and how it drains are the library's (stream_pump.h). */
#pragma once

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
  /* Frames the last chain loop left ready (downstream refused one) go
   * downstream first; then `inbuf` (a reference is kept only for its metadata)
   * goes into the window. */
  GstFlowReturn push (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream, GstBuffer * inbuf,
      bool cuda_backend);
  /* The next ready frame in a buffer of the output pool, with its input's
   * metadata; *outbuf stays NULL when none is ready. */
  GstFlowReturn pop (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream, GstBuffer ** outbuf,
      bool cuda_backend);
  /* End of the stream: every held frame downstream, in order; the next push
   * starts a new stream. */
  GstFlowReturn drain (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream, bool cuda_backend);
  /* Flush: the held frames are dropped. */
  void flush (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream);

private:
  guint64 in_ = 0, out_ = 0;  /* frames of the current stream, for the log */
};
