/* gstcdnsharedcontext: see gstcdnsharedcontext.h. The search for a context follows
 * GStreamer's own (the neighbours by a context query, downstream then upstream,
 * then a need-context message to the bins and the application). */
#include "gstcdnsharedcontext.h"

#ifdef CDN_GST_CUDA
#include <gst/cuda/gstcudautils.h>

#include <map>
#include <mutex>

namespace {

std::mutex registry_lock;
std::map<guint, GWeakRef *> registry;  // device -> the process's context, while someone holds it

/* A context query to `pad`'s peer; the answer, if any, goes to `element`'s set_context. */
void
ask_peer (GstElement * element, GstPad * pad, GstQuery * query)
{
  if (!pad || !gst_pad_peer_query (pad, query))
    return;
  GstContext *context = nullptr;
  gst_query_parse_context (query, &context);
  if (context)
    gst_element_set_context (element, context);
}

}  // namespace

GstCudaContext *
gst_cdn_shared_cuda_context (guint device_id)
{
  std::lock_guard<std::mutex> hold (registry_lock);
  GWeakRef *&ref = registry[device_id];
  if (!ref) {
    ref = g_new0 (GWeakRef, 1);
    g_weak_ref_init (ref, nullptr);
  }
  auto *context = static_cast<GstCudaContext *> (g_weak_ref_get (ref));
  if (context)
    return context;
  context = gst_cuda_context_new (device_id);
  if (context)
    g_weak_ref_set (ref, context);
  return context;
}

gboolean
gst_cdn_ensure_cuda_context (GstElement * element, GstPad * downstream, GstPad * upstream, gint device_id,
    GstCudaContext ** cuda_ctx)
{
  /* One search at a time, as GStreamer's: two elements starting together find each other's. */
  static std::recursive_mutex lock;
  std::lock_guard<std::recursive_mutex> hold (lock);
  if (*cuda_ctx)
    return TRUE;
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  ask_peer (element, downstream, query);
  if (!*cuda_ctx)
    ask_peer (element, upstream, query);
  gst_query_unref (query);
  if (!*cuda_ctx)
    gst_element_post_message (element, gst_message_new_need_context (GST_OBJECT_CAST (element),
            GST_CUDA_CONTEXT_TYPE));
  if (*cuda_ctx)
    return TRUE;

  GstCudaContext *shared = gst_cdn_shared_cuda_context (device_id > 0 ? device_id : 0);
  if (!shared) {
    GST_ERROR_OBJECT (element, "no CUDA context could be made on device %d", device_id > 0 ? device_id : 0);
    return FALSE;
  }
  GstContext *context = gst_context_new_cuda_context (shared);
  gst_element_set_context (element, context);  /* takes `shared` into *cuda_ctx */
  gst_object_unref (shared);
  if (!*cuda_ctx) {
    gst_context_unref (context);
    GST_ERROR_OBJECT (element, "the element refused the process's CUDA context of its device");
    return FALSE;
  }
  GST_INFO_OBJECT (element, "using the process's CUDA context %" GST_PTR_FORMAT, *cuda_ctx);
  gst_element_post_message (element, gst_message_new_have_context (GST_OBJECT_CAST (element), context));
  return TRUE;
}
#endif
