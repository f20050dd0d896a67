/* gstcudadenoisewindow.cpp: cudadenoise's temporal path (gstcudadenoisewindow.h). */
#include "gstcudadenoisewindow.h"

#include <string>

#include "cudadenoise/stream_pump.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_denoise_debug);
#define GST_CAT_DEFAULT gst_cuda_denoise_debug

namespace {

/* Thrown by OutputSink::next() when no output buffer can be had. */
struct NoBuffer
{
  GstFlowReturn flow;
};

/* Output frames in buffers of the negotiated pool, mapped on the device when
 * they are CUDA memory of our context. take() is the one way a frame of the
 * window leaves the element: it gets the metadata of its input (its tag), its
 * end is noted as the output position, and it goes downstream. */
class OutputSink final : public cdn::FrameSink
{
public:
  OutputSink (GstCdnBaseTransform * element, bool cuda_backend, std::atomic<GstClockTime> * out_end)
    : element_ (element), cuda_backend_ (cuda_backend), out_end_ (out_end) {}

  cdn::FrameView next () override
  {
    GstBaseTransform *trans = GST_BASE_TRANSFORM (element_);
    /* Our decide_allocation always sets a pool (a CUDA pool for CUDA caps). */
    GstBufferPool *pool = gst_base_transform_get_buffer_pool (trans);
    if (!pool) {
      GST_ELEMENT_ERROR (element_, CORE, NEGOTIATION, ("no output buffer pool"), (nullptr));
      throw NoBuffer {GST_FLOW_NOT_NEGOTIATED};
    }
    GstFlowReturn ret = GST_FLOW_OK;
    GstBuffer *out = nullptr;
    if (!gst_buffer_pool_is_active (pool) && !gst_buffer_pool_set_active (pool, TRUE)) {
      GST_ELEMENT_ERROR (element_, RESOURCE, SETTINGS, ("could not activate the output buffer pool"), (nullptr));
      ret = GST_FLOW_ERROR;
    } else {
      ret = gst_buffer_pool_acquire_buffer (pool, &out, nullptr);
    }
    gst_object_unref (pool);
    if (ret != GST_FLOW_OK)
      throw NoBuffer {ret};
    buffer_.reset (out);
    const bool device = gst_cdn_base_transform_on_device (element_, out, cuda_backend_);
    std::string error;
    if (!mapped_.map (out, &element_->out_info, GST_MAP_WRITE, device, &error)) {
      GST_ELEMENT_ERROR (element_, STREAM, FAILED, ("could not map a frame"), ("%s", error.c_str ()));
      throw NoBuffer {GST_FLOW_ERROR};
    }
    return mapped_.view ();
  }

  bool take (cdn::FrameTag tag) override
  {
    mapped_.unmap ();
    GstBuffer *out = buffer_.release ();
    GstBuffer *meta = static_cast < GstBuffer * >(tag.get ());
    GstBaseTransform *trans = GST_BASE_TRANSFORM (element_);
    GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (trans);
    if (klass->copy_metadata && !klass->copy_metadata (trans, meta, out))
      GST_WARNING_OBJECT (element_, "could not copy the metadata of a frame");
    /* As GstBaseTransform's chain notes the frames it pushes (its own note,
     * which the element's POSITION answer stands in for). */
    if (GST_BUFFER_PTS_IS_VALID (out))
      out_end_->store (GST_BUFFER_PTS (out) + (GST_BUFFER_DURATION_IS_VALID (out) ? GST_BUFFER_DURATION (out) : 0));
    GST_LOG_OBJECT (element_, "out pts %" GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (out)));
    taken_++;
    flow_ = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (trans), out);
    if (flow_ != GST_FLOW_OK)
      GST_DEBUG_OBJECT (element_, "downstream returned %s", gst_flow_get_name (flow_));
    return flow_ == GST_FLOW_OK;
  }

  GstFlowReturn flow_ = GST_FLOW_OK; /* the last push's result */
  guint64 taken_ = 0;                /* frames sent downstream */

private:
  GstCdnBaseTransform *element_;
  bool cuda_backend_;
  std::atomic<GstClockTime> *out_end_;
  GstCdnBufferPtr buffer_;   /* acquired and not yet taken */
  GstCdnMappedFrame mapped_; /* after buffer_: unmapped before it goes */
};

/* Runs a step of the library's loop; errors become element errors, an abandoned
 * frame or a missing output buffer the flow to return. */
template <typename F>
GstFlowReturn
step (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream, const char *what, F && f)
{
  try {
    return gst_cdn_guarded (element, what, cdn::backend_name (stream.backend ()), f);
  } catch (const cdn::Cancelled &) {
    return GST_FLOW_FLUSHING;
  } catch (const NoBuffer & e) {
    return e.flow;
  }
}

}  // namespace

GstFlowReturn
GstCudaDenoiseWindow::push (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream, GstBuffer * inbuf,
    bool cuda_backend)
{
  GstCdnContextGuard context (element);
  if (!context.ok ()) {
    GST_ELEMENT_ERROR (element, LIBRARY, FAILED, ("could not make the CUDA context current"), (nullptr));
    return GST_FLOW_ERROR;
  }
  /* Downstream refused a frame and the last push stopped sending: the frames
   * ready since go out now (their pushes' results do not matter any more). */
  OutputSink late (element, cuda_backend, out_end_);
  GstFlowReturn ret = step (element, stream, "denoising", [&] {
    const int n = cdn::catch_up (stream, late);
    if (n > 0)
      GST_DEBUG_OBJECT (element, "caught up: %d frames downstream", n);
  });
  out_ += late.taken_;
  if (ret != GST_FLOW_OK)
    return ret;

  const bool device = gst_cdn_base_transform_on_device (element, inbuf, cuda_backend);
  {
    GstCdnMappedFrame in;
    std::string error;
    if (!in.map (inbuf, &element->in_info, GST_MAP_READ, device, &error)) {
      GST_ELEMENT_ERROR (element, STREAM, FAILED, ("could not map a frame"), ("%s", error.c_str ()));
      return GST_FLOW_ERROR;
    }
    /* What the output of this frame will carry (its tag): timestamps, offsets,
     * flags and metas. */
    cdn::FrameTag meta (gst_buffer_new (), [](void *b) { gst_buffer_unref (static_cast < GstBuffer * >(b)); });
    GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (element);
    if (klass->copy_metadata
        && !klass->copy_metadata (GST_BASE_TRANSFORM (element), inbuf, static_cast < GstBuffer * >(meta.get ())))
      GST_WARNING_OBJECT (element, "could not copy the metadata of an input buffer");
    /* The stream copies the frame: the input buffer can go back to upstream's pool. */
    ret = step (element, stream, "denoising", [&] { stream.push (in.view (), nullptr, std::move (meta)); });
    if (ret != GST_FLOW_OK)
      return ret;
  }
  in_++;
  GST_LOG_OBJECT (element, "in %" G_GUINT64_FORMAT " pts %" GST_TIME_FORMAT " (%s), %d held", in_,
      GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)), device ? "device" : "host", stream.held ());

  /* Every frame ready now, until downstream refuses one (the rest wait for the
   * next push's catch-up, or the drain). */
  OutputSink ready (element, cuda_backend, out_end_);
  ret = step (element, stream, "denoising", [&] { cdn::pop_ready (stream, ready); });
  out_ += ready.taken_;
  return ret == GST_FLOW_OK ? ready.flow_ : ret;
}

GstFlowReturn
GstCudaDenoiseWindow::drain (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream, bool cuda_backend)
{
  if (stream.held () == 0)
    return GST_FLOW_OK;
  GstCdnContextGuard context (element);
  GST_DEBUG_OBJECT (element, "draining %d frames", stream.held ());
  OutputSink downstream (element, cuda_backend, out_end_);
  GstFlowReturn ret = step (element, stream, "draining", [&] { cdn::drain (stream, downstream); });
  out_ += downstream.taken_;
  if (ret == GST_FLOW_OK)
    ret = downstream.flow_;
  if (ret != GST_FLOW_OK || stream.held () > 0) {
    GST_INFO_OBJECT (element, "drain stopped (%s): dropping %d frames", gst_flow_get_name (ret), stream.held ());
    flush (element, stream);
  }
  GST_DEBUG_OBJECT (element, "stream ended: %" G_GUINT64_FORMAT " frames in, %" G_GUINT64_FORMAT " out", in_, out_);
  in_ = out_ = 0;
  return ret;
}

void
GstCudaDenoiseWindow::flush (GstCdnBaseTransform * element, cdn::StreamDenoiser & stream)
{
  GST_DEBUG_OBJECT (element, "dropping %d held frames", stream.held ());
  GstCdnContextGuard context (element);
  step (element, stream, "resetting", [&] { stream.reset (); });
  in_ = out_ = 0;
}
