/* gstcdnmappedframe.cpp: buffers mapped as frames (gstcdnmappedframe.h). */
#include "gstcdnmappedframe.h"

#include "gstcdncaps.h"

gboolean
gst_cdn_buffer_is_cuda (GstBuffer * buffer)
{
#ifdef CDN_GST_CUDA
  return gst_buffer_n_memory (buffer) > 0 && gst_is_cuda_memory (gst_buffer_peek_memory (buffer, 0));
#else
  (void) buffer;
  return FALSE;
#endif
}

#ifdef CDN_GST_CUDA
gboolean
gst_cdn_buffer_on_context (GstBuffer * buffer, GstCudaContext * context)
{
  return context && gst_cdn_buffer_is_cuda (buffer) &&
      GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buffer, 0))->context == context;
}
#endif

GstCdnMappedFrame::~GstCdnMappedFrame ()
{
  unmap ();
}

void
GstCdnMappedFrame::unmap ()
{
  if (mapped_)
    gst_video_frame_unmap (&frame_);
  mapped_ = false;
}

bool
GstCdnMappedFrame::map (GstBuffer * buffer, const GstVideoInfo * info, GstMapFlags flags, bool device,
    std::string * error)
{
  unmap ();
  const GstVideoInfo *layout = info;
  if (device) {
#ifdef CDN_GST_CUDA
    if (gst_buffer_n_memory (buffer) != 1 || !gst_is_cuda_memory (gst_buffer_peek_memory (buffer, 0))) {
      *error = "a buffer on the CUDA path is not a single CUDA memory";
      return false;
    }
    GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buffer, 0));
    /* Without a video meta the planes are where the allocator put them (pitched),
     * not where the caps' default layout says. */
    if (!gst_buffer_get_video_meta (buffer)) {
      if (GST_VIDEO_INFO_FORMAT (&cmem->info) != GST_VIDEO_INFO_FORMAT (info) ||
          GST_VIDEO_INFO_WIDTH (&cmem->info) != GST_VIDEO_INFO_WIDTH (info) ||
          GST_VIDEO_INFO_HEIGHT (&cmem->info) != GST_VIDEO_INFO_HEIGHT (info)) {
        *error = "CUDA memory without video meta does not match the negotiated format or size";
        return false;
      }
      layout = &cmem->info;
    }
    flags = (GstMapFlags) (flags | GST_MAP_CUDA);
#else
    *error = "built without GStreamer CUDA support";
    return false;
#endif
  }
  if (!gst_video_frame_map (&frame_, layout, buffer, flags)) {
    *error = device ? "could not map the buffer for CUDA (GST_MAP_CUDA)" : "could not map the buffer";
    return false;
  }
  mapped_ = true;

  view_ = cdn::FrameView ();
  if (!gst_cdn_pixel_format (GST_VIDEO_FRAME_FORMAT (&frame_), &view_.format)) {
    *error = std::string ("unsupported format ") + gst_video_format_to_string (GST_VIDEO_FRAME_FORMAT (&frame_));
    unmap ();
    return false;
  }
  view_.width = GST_VIDEO_FRAME_WIDTH (&frame_);
  view_.height = GST_VIDEO_FRAME_HEIGHT (&frame_);
  view_.memory = device ? cdn::MemoryKind::Device : cdn::MemoryKind::Host;
  const int planes = cdn::format_info (view_.format).planes;
  if ((int) GST_VIDEO_FRAME_N_PLANES (&frame_) != planes) {
    *error = "plane count differs between GStreamer and the library";
    unmap ();
    return false;
  }
  for (int p = 0; p < planes; p++) {
    if (GST_VIDEO_FRAME_PLANE_STRIDE (&frame_, p) <= 0) {
      *error = "negative or zero stride";
      unmap ();
      return false;
    }
    view_.data[p] = GST_VIDEO_FRAME_PLANE_DATA (&frame_, p);
    view_.pitch[p] = (std::size_t) GST_VIDEO_FRAME_PLANE_STRIDE (&frame_, p);
  }
  return true;
}
