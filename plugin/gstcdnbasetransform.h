/* GstCdnBaseTransform: what cudadenoise and cudaaddnoise share.
 *
 * The CUDA plumbing of a one-frame-in, one-frame-out video filter that works on
 * both video/x-raw(memory:CUDAMemory) and video/x-raw:
 * - the `cuda-device-id` property and one GstCudaContext shared with neighbours
 *   (context query, set_context, need/have-context messages), adopting the
 *   context of incoming CUDA memory like nvcodec's cudabasetransform;
 * - caps: the same format and size on both pads, both memory kinds offered with
 *   the input's kind first; readable warnings for formats we cannot take;
 * - allocation: a CUDA buffer pool on our context (or a video pool) with video
 *   meta, proposed upstream and decided downstream;
 * - GstCdnMappedFrame: a buffer mapped as a cdn::FrameView, on the device
 *   (GST_MAP_CUDA, CUdeviceptr planes) or for the CPU.
 *
 * Subclasses keep their per-stream objects in a State they drop in reset_state(),
 * which the base calls on new caps, a change of CUDA context and stop. Subclasses
 * that hold frames (a temporal window) also implement drain(), which the base
 * calls first in those two cases while the old caps, pool and context are still
 * in place, and flush(), called on FLUSH_STOP instead of reset_state().
 */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#ifdef CDN_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

#include <string>

#include "frame.h"

G_BEGIN_DECLS

/* Formats in CUDA memory are those of the 1.22 CUDA allocator that the kernels
 * know; its allocator has no gray layouts, so GRAY8 and GRAY16_LE are system
 * memory only. */
#define GST_CDN_CUDA_FORMATS "{ NV12, I420, P010_10LE, P016_LE, Y444 }"
#define GST_CDN_SYSTEM_FORMATS "{ NV12, I420, P010_10LE, P016_LE, Y444, GRAY8, GRAY16_LE }"

#define GST_TYPE_CDN_BASE_TRANSFORM (gst_cdn_base_transform_get_type ())
#define GST_CDN_BASE_TRANSFORM(obj) \
  (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_CDN_BASE_TRANSFORM, GstCdnBaseTransform))
#define GST_CDN_BASE_TRANSFORM_CLASS(klass) \
  (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_CDN_BASE_TRANSFORM, GstCdnBaseTransformClass))
#define GST_CDN_BASE_TRANSFORM_GET_CLASS(obj) \
  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_CDN_BASE_TRANSFORM, GstCdnBaseTransformClass))
#define GST_IS_CDN_BASE_TRANSFORM(obj) (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_CDN_BASE_TRANSFORM))

typedef struct _GstCdnBaseTransform GstCdnBaseTransform;
typedef struct _GstCdnBaseTransformClass GstCdnBaseTransformClass;
typedef struct _GstCdnBaseTransformPrivate GstCdnBaseTransformPrivate;

struct _GstCdnBaseTransform
{
  GstBaseTransform parent;

  /* Negotiated caps (valid after set_caps, streaming thread only). */
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  cdn::PixelFormat format;
  gboolean in_cuda_caps;  /* sink caps carry memory:CUDAMemory */
  gboolean out_cuda_caps; /* src caps carry memory:CUDAMemory */

#ifdef CDN_GST_CUDA
  /* Set between start and stop when CUDA is wanted and usable; may be replaced
   * on the streaming thread by the context of incoming CUDA memory. */
  GstCudaContext *context;
#endif

  GstCdnBaseTransformPrivate *priv;
};

struct _GstCdnBaseTransformClass
{
  GstBaseTransformClass parent_class;

  /* Whether start() should find or create a CUDA context (TRUE by default).
   * When FALSE, or when no CUDA device is usable, only system memory is offered. */
  gboolean (*want_cuda) (GstCdnBaseTransform * self);

  /* Drop the per-stream State. Called on the streaming or state-change thread
   * with the CUDA context that State was built with still set (not pushed). */
  void (*reset_state) (GstCdnBaseTransform * self);

  /* Optional: push every held frame downstream. Called on the streaming thread
   * just before reset_state() for new caps and for a change of CUDA context,
   * with the old caps, output pool and context still set (not pushed). */
  GstFlowReturn (*drain) (GstCdnBaseTransform * self);

  /* Optional: drop every held frame on FLUSH_STOP (streaming thread). Default:
   * reset_state(). */
  void (*flush) (GstCdnBaseTransform * self);
};

GType gst_cdn_base_transform_get_type (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCdnBaseTransform, gst_object_unref)

/* Adds sink and src pad templates (CUDA memory and system memory caps). */
void gst_cdn_base_transform_add_pad_templates (GstElementClass * klass);

/* TRUE when buffer's first memory is CUDA memory (always FALSE without gst-cuda). */
gboolean gst_cdn_buffer_is_cuda (GstBuffer * buffer);

/* GstVideoFormat -> cdn::PixelFormat (by name); FALSE when the library lacks it. */
gboolean gst_cdn_pixel_format (GstVideoFormat format, cdn::PixelFormat * out);

G_END_DECLS

/* Between start and stop: TRUE when a CUDA context is held and CUDA memory is
 * offered. When FALSE, `why` (if given) receives the reason. */
gboolean gst_cdn_base_transform_cuda_enabled (GstCdnBaseTransform * self, std::string * why);

/* Pushes the element's GstCudaContext for the guard's lifetime (no-op without one). */
class GstCdnContextGuard
{
public:
  explicit GstCdnContextGuard (GstCdnBaseTransform * self);
  ~GstCdnContextGuard ();
  GstCdnContextGuard (const GstCdnContextGuard &) = delete;
  GstCdnContextGuard & operator= (const GstCdnContextGuard &) = delete;
  bool ok () const { return ok_; }

private:
  bool pushed_ = false;
  bool ok_ = true;
};

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
