/* GstCdnBaseTransform: what cudadenoise and cudaaddnoise share.
 *
 * The CUDA plumbing of a one-frame-in, one-frame-out video filter that works on
 * both video/x-raw(memory:CUDAMemory) and video/x-raw:
 * - the `cuda-device-id` property and one GstCudaContext shared with neighbours
 *   (context query, set_context, need/have-context messages), adopting the
 *   context of incoming CUDA memory like nvcodec's cudabasetransform;
 * - caps: the same format and size on both pads, both memory kinds offered with
 *   the input's kind first; readable warnings for formats we cannot take
 *   (gstcdncaps.h);
 * - allocation: a CUDA buffer pool on our context (or a video pool) with video
 *   meta, proposed upstream and decided downstream (gstcdnallocation.h);
 * - metas: video metas that do not depend on the pixels (crop, regions of
 *   interest, orientation, colorimetry) are kept, as GstVideoFilter keeps them;
 * - buffers are mapped as cdn::FrameView with GstCdnMappedFrame
 *   (gstcdnmappedframe.h), on the device (GST_MAP_CUDA) or for the CPU.
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

#include <exception>
#include <string>

#include "cudadenoise/error.h"
#include "cudadenoise/frame.h"
#include "gstcdncaps.h"
#include "gstcdnmappedframe.h"

G_BEGIN_DECLS

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

G_END_DECLS

/* Between start and stop: TRUE when a CUDA context is held and CUDA memory is
 * offered. When FALSE, `why` (if given) receives the reason. */
gboolean gst_cdn_base_transform_cuda_enabled (GstCdnBaseTransform * self, std::string * why);

/* For a subclass that falls back to the CPU when it holds no CUDA context:
 * posts a warning message when a CUDA device answered yet no context could be
 * made on it (a wrong cuda-device-id, a device out of memory), so that the
 * fallback is not silent. Nothing when the element holds a context or no
 * device answered. Call after the base class's start. */
void gst_cdn_base_transform_warn_cpu_fallback (GstCdnBaseTransform * self);

/* CUDA memory from another context (a decoder that made its own) makes the
 * element adopt that context, when cuda-device-id allows, so that it is filtered
 * in place: held frames are drained and the State reset first. GstBaseTransform
 * calls it before transform(); a subclass that takes buffers in
 * submit_input_buffer calls it itself. */
void gst_cdn_base_transform_adopt_context (GstCdnBaseTransform * self, GstBuffer * buffer);

/* TRUE when `buffer` can be used through device pointers: CUDA memory of the
 * element's context, with a CUDA context held and `cuda_backend` set. */
bool gst_cdn_base_transform_on_device (GstCdnBaseTransform * self, GstBuffer * buffer, bool cuda_backend);

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

/* Runs `f`, turning the library's exceptions into element errors that say `what`
 * failed; cdn::Cancelled (a frame abandoned on flush or stop) is rethrown for the
 * caller to return FLUSHING. */
template <typename F>
GstFlowReturn
gst_cdn_guarded (GstCdnBaseTransform * self, const char *what, const char *backend, F && f)
{
  try {
    f ();
    return GST_FLOW_OK;
  } catch (const cdn::Cancelled &) {
    throw;
  } catch (const cdn::InvalidArgument & e) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s failed: %s", what, e.what ()), ("invalid frame or settings"));
  } catch (const cdn::Error & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("%s failed: %s", what, e.what ()), ("%s backend", backend));
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("%s failed: %s", what, e.what ()), (nullptr));
  }
  return GST_FLOW_ERROR;
}
