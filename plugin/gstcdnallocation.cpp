/* gstcdnallocation.cpp: output and proposed buffer pools (gstcdnallocation.h). */
#include "gstcdnallocation.h"

#include "gstcdncaps.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cdn_base_transform_debug);
#define GST_CAT_DEFAULT gst_cdn_base_transform_debug

/* A pool for `caps`: CUDA memory on our context, or system memory. */
static GstBufferPool *
new_pool (GstCdnBaseTransform * self, GstCaps * caps)
{
#ifdef CDN_GST_CUDA
  if (gst_cdn_caps_are_cuda (caps) && self->context)
    return gst_cuda_buffer_pool_new (self->context);
#else
  (void) self;
  (void) caps;
#endif
  return gst_video_buffer_pool_new ();
}

/* Configures `pool` for caps; returns the buffer size it will really allocate
 * (a CUDA pool pads rows to its pitch), or 0 when the pool refuses. */
static guint
configure_pool (GstBufferPool * pool, GstCaps * caps, guint size, guint min, guint max, gboolean video_meta)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  if (video_meta && gst_buffer_pool_has_option (pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (!gst_buffer_pool_set_config (pool, config))
    return 0;
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, nullptr, &size, nullptr, nullptr);
  gst_structure_free (config);
  return size;
}

gboolean
gst_cdn_propose_allocation (GstCdnBaseTransform * self, GstQuery * decide_query, GstQuery * query)
{
  GstCaps *caps = nullptr;
  GstVideoInfo info;

  if (!decide_query) /* passthrough */
    return TRUE;

  gst_query_parse_allocation (query, &caps, nullptr);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  gboolean can_pool = TRUE;
#ifdef CDN_GST_CUDA
  can_pool = !gst_cdn_caps_are_cuda (caps) || self->context != nullptr;
#endif
  if (can_pool && gst_query_get_n_allocation_pools (query) == 0) {
    GstBufferPool *pool = new_pool (self, caps);
    guint size = configure_pool (pool, caps, (guint) GST_VIDEO_INFO_SIZE (&info), 0, 0, TRUE);
    if (size == 0) {
      GST_WARNING_OBJECT (self, "could not configure the proposed pool");
      gst_object_unref (pool);
      return FALSE;
    }
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
    gst_object_unref (pool);
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  return TRUE;
}

gboolean
gst_cdn_decide_allocation (GstCdnBaseTransform * self, GstQuery * query)
{
  GstCaps *outcaps = nullptr;
  GstBufferPool *pool = nullptr;
  guint size = 0, min = 0, max = 0;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &outcaps, nullptr);
  if (!outcaps || !gst_video_info_from_caps (&info, outcaps))
    return FALSE;
  const gboolean cuda = gst_cdn_caps_are_cuda (outcaps);
#ifdef CDN_GST_CUDA
  if (cuda && !self->context) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("memory:CUDAMemory output without a CUDA context"), (nullptr));
    return FALSE;
  }
#endif
  const gboolean video_meta = cuda || gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  const gboolean update = gst_query_get_n_allocation_pools (query) > 0;

  if (update) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
#ifdef CDN_GST_CUDA
    /* Downstream's pool only when it hands out CUDA memory on our context. */
    if (pool && cuda && (!GST_IS_CUDA_BUFFER_POOL (pool) || GST_CUDA_BUFFER_POOL (pool)->context != self->context))
      gst_clear_object (&pool);
    if (pool && !cuda && GST_IS_CUDA_BUFFER_POOL (pool))
      gst_clear_object (&pool);
#endif
  }
  if (size < GST_VIDEO_INFO_SIZE (&info))
    size = (guint) GST_VIDEO_INFO_SIZE (&info);

  guint real = 0;
  if (pool) {
    real = configure_pool (pool, outcaps, size, min, max, video_meta);
    if (real == 0) {
      GST_DEBUG_OBJECT (self, "downstream pool refused our config, using our own");
      gst_clear_object (&pool);
    }
  }
  if (!pool) {
    pool = new_pool (self, outcaps);
    real = configure_pool (pool, outcaps, (guint) GST_VIDEO_INFO_SIZE (&info), min, max, video_meta);
    if (real == 0) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("could not configure an output buffer pool"),
          ("caps %" GST_PTR_FORMAT, outcaps));
      gst_object_unref (pool);
      return FALSE;
    }
  }
  GST_DEBUG_OBJECT (self, "output pool %" GST_PTR_FORMAT " (%s memory), size %u", pool, cuda ? "CUDA" : "system", real);
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, real, min, max);
  else
    gst_query_add_allocation_pool (query, pool, real, min, max);
  gst_object_unref (pool);
  return TRUE;
}
