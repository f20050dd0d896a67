/* gstcdnmappedframe.h: GStreamer buffers as the library's frames
 * (cdn::FrameView), on the device or for the CPU, for the cudadenoise plugin's
 * elements. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#ifdef CDN_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#endif

#include <string>

#include "cudadenoise/frame.h"

/* TRUE when buffer's first memory is CUDA memory (always FALSE without gst-cuda). */
gboolean gst_cdn_buffer_is_cuda (GstBuffer * buffer);

#ifdef CDN_GST_CUDA
/* TRUE when the buffer is CUDA memory of `context`: the kernels may use its
 * device pointers where they are (zero-copy). Anything else is mapped for the CPU. */
gboolean gst_cdn_buffer_on_context (GstBuffer * buffer, GstCudaContext * context);
#endif

/* A buffer mapped as a cdn::FrameView; unmapped by the destructor.
 * device = true maps CUDA memory with GST_MAP_CUDA (device pointers, the buffer is
 * never touched by the CPU); device = false maps it for the CPU (system memory,
 * or CUDA memory through the allocator's staging copy). */
class GstCdnMappedFrame
{
public:
  GstCdnMappedFrame () = default;
  ~GstCdnMappedFrame ();
  GstCdnMappedFrame (const GstCdnMappedFrame &) = delete;
  GstCdnMappedFrame & operator= (const GstCdnMappedFrame &) = delete;

  /* On failure returns false and sets `error` to a readable reason. */
  bool map (GstBuffer * buffer, const GstVideoInfo * info, GstMapFlags flags,
      bool device, std::string * error);
  void unmap ();

  const cdn::FrameView & view () const { return view_; }
  GstVideoFrame * frame () { return &frame_; }

private:
  GstVideoFrame frame_ {};
  bool mapped_ = false;
  cdn::FrameView view_;
};
