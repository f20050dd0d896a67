/* GstCdnBaseTransform: the cuda-device-id property, CUDA context sharing,
 * start/stop, set_caps and the vfuncs that hand caps, allocation and metas to
 * gstcdncaps, gstcdnallocation. See gstcdnbasetransform.h. */
#include "gstcdnbasetransform.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <string>

#include "cudadenoise/backend.h"
#include "gstcdnallocation.h"
#include "gstcdnsharedcontext.h"

GST_DEBUG_CATEGORY (gst_cdn_base_transform_debug);
#define GST_CAT_DEFAULT gst_cdn_base_transform_debug

enum
{
  PROP_0,
  PROP_DEVICE_ID,
};

#define DEFAULT_DEVICE_ID -1

struct _GstCdnBaseTransformPrivate
{
  /* Guards GstCdnBaseTransform::context against context queries and
   * set_context from other threads while the streaming thread may swap it. */
  GMutex context_lock;
  gint device_id = DEFAULT_DEVICE_ID;
  gboolean started = FALSE;
  gboolean cuda_enabled = FALSE;
  std::string cuda_why = "not started";
  /* A CUDA device answered but the element holds no context on it: a fallback
   * to the CPU here is a fault to report, not the expected path of a machine
   * without a GPU. */
  gboolean gpu_unused = FALSE;
  /* Unsupported-caps explanations already posted since start. */
  std::set<std::string> warned;
  gboolean warned_cross_context = FALSE;
};

#define gst_cdn_base_transform_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE (GstCdnBaseTransform, gst_cdn_base_transform, GST_TYPE_BASE_TRANSFORM);

/* ---- helpers --------------------------------------------------------------- */

void
gst_cdn_base_transform_add_pad_templates (GstElementClass * klass)
{
  GstCaps *caps = gst_cdn_template_caps ();
  gst_element_class_add_pad_template (klass, gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (klass, gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

gboolean
gst_cdn_base_transform_cuda_enabled (GstCdnBaseTransform * self, std::string * why)
{
  if (!self->priv->cuda_enabled && why)
    *why = self->priv->cuda_why;
  return self->priv->cuda_enabled;
}

void
gst_cdn_base_transform_warn_cpu_fallback (GstCdnBaseTransform * self)
{
  if (self->priv->cuda_enabled || !self->priv->gpu_unused)
    return;
  GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ_WRITE,
      ("a CUDA device is present but cannot be used (%s): filtering on the CPU, which is much slower",
          self->priv->cuda_why.c_str ()),
      ("check cuda-device-id and the free memory of the device"));
}

static gboolean
want_cuda (GstCdnBaseTransform * self)
{
#ifdef CDN_GST_CUDA
  GstCdnBaseTransformClass *klass = GST_CDN_BASE_TRANSFORM_GET_CLASS (self);
  return !klass->want_cuda || klass->want_cuda (self);
#else
  (void) self;
  return FALSE;
#endif
}

/* CUDA memory may be offered: before start when the element would look for a
 * context, after start only when it holds one. */
static gboolean
cuda_caps_allowed (GstCdnBaseTransform * self)
{
  return self->priv->started ? self->priv->cuda_enabled : want_cuda (self);
}

static void
reset_state (GstCdnBaseTransform * self)
{
  GstCdnBaseTransformClass *klass = GST_CDN_BASE_TRANSFORM_GET_CLASS (self);
  if (klass->reset_state)
    klass->reset_state (self);
}

/* Held frames go downstream, then the State goes (new caps, new context). */
static void
drain_and_reset_state (GstCdnBaseTransform * self, const gchar * why)
{
  GstCdnBaseTransformClass *klass = GST_CDN_BASE_TRANSFORM_GET_CLASS (self);
  if (klass->drain) {
    GstFlowReturn ret = klass->drain (self);
    if (ret != GST_FLOW_OK)
      GST_INFO_OBJECT (self, "draining before %s: %s", why, gst_flow_get_name (ret));
  }
  reset_state (self);
}

static void
warn_unsupported (GstCdnBaseTransform * self, GstCaps * caps)
{
  std::string msg = gst_cdn_explain_unsupported (caps);
  if (msg.empty () && gst_cdn_caps_all_cuda (caps) && !cuda_caps_allowed (self)) {
    std::string why = self->priv->started ? self->priv->cuda_why : "CUDA is not wanted (backend=cpu)";
    msg = "cannot take memory:CUDAMemory without a CUDA context (" + why +
        "). Put cudadownload in front of it, or use a backend other than cpu.";
  }
  if (msg.empty ())
    return;
  GST_WARNING_OBJECT (self, "%s", msg.c_str ());
  GST_OBJECT_LOCK (self);
  gboolean fresh = self->priv->warned.insert (msg).second;
  GST_OBJECT_UNLOCK (self);
  if (fresh)
    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION, ("%s", msg.c_str ()), ("offered caps: %" GST_PTR_FORMAT, caps));
}

/* ---- GstCdnContextGuard ------------------------------------------------------ */

GstCdnContextGuard::GstCdnContextGuard (GstCdnBaseTransform * self)
{
#ifdef CDN_GST_CUDA
  if (self->context && self->priv->cuda_enabled) {
    ok_ = pushed_ = gst_cuda_context_push (self->context);
    if (!ok_)
      GST_ERROR_OBJECT (self, "could not push the CUDA context %" GST_PTR_FORMAT, self->context);
  }
#else
  (void) self;
#endif
}

GstCdnContextGuard::~GstCdnContextGuard ()
{
#ifdef CDN_GST_CUDA
  if (pushed_)
    gst_cuda_context_pop (nullptr);
#endif
}

/* ---- GObject ------------------------------------------------------------------ */

static void
gst_cdn_base_transform_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (object);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      self->priv->device_id = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cdn_base_transform_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (object);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      g_value_set_int (value, self->priv->device_id);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

G_GNUC_UNUSED static gint
device_id (GstCdnBaseTransform * self)
{
  GST_OBJECT_LOCK (self);
  gint id = self->priv->device_id;
  GST_OBJECT_UNLOCK (self);
  return id;
}

static void
gst_cdn_base_transform_finalize (GObject * object)
{
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (object);
#ifdef CDN_GST_CUDA
  gst_clear_object (&self->context);
#endif
  g_mutex_clear (&self->priv->context_lock);
  delete self->priv;
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- GstElement ------------------------------------------------------------- */

static void
gst_cdn_base_transform_set_context (GstElement * element, GstContext * context)
{
#ifdef CDN_GST_CUDA
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (element);
  const gint id = device_id (self);
  g_mutex_lock (&self->priv->context_lock);
  gst_cuda_handle_set_context (element, context, id, &self->context);
  g_mutex_unlock (&self->priv->context_lock);
#endif
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* ---- GstBaseTransform ----------------------------------------------------- */

static gboolean
gst_cdn_base_transform_start (GstBaseTransform * trans)
{
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (trans);
  GstCdnBaseTransformPrivate *priv = self->priv;

  priv->cuda_enabled = FALSE;
  priv->gpu_unused = FALSE;
  priv->warned.clear ();
  priv->warned_cross_context = FALSE;
#ifdef CDN_GST_CUDA
  if (!want_cuda (self)) {
    priv->cuda_why = "CUDA is not wanted (backend=cpu)";
  } else if (!gst_cuda_load_library ()) {
    priv->cuda_why = "the CUDA driver library (libcuda.so.1) could not be loaded";
  } else if (!cdn::cuda_available (&priv->cuda_why)) {
    /* cuda_why set by the library */
  } else {
    const gint id = device_id (self);
    /* Not under context_lock: this calls our set_context, which takes it. The
     * neighbours' or the application's context, else the process's one for the
     * device (gstcdnsharedcontext.h), not a new one per element. */
    if (gst_cdn_ensure_cuda_context (GST_ELEMENT_CAST (self), trans->srcpad, trans->sinkpad, id, &self->context)) {
      priv->cuda_enabled = TRUE;
      priv->cuda_why.clear ();
      GST_INFO_OBJECT (self, "using CUDA context %" GST_PTR_FORMAT, self->context);
    } else {
      priv->cuda_why = "no CUDA context could be created on device " + std::to_string (id < 0 ? 0 : id);
      priv->gpu_unused = TRUE;
    }
  }
#else
  priv->cuda_why = "the plugin was built without GStreamer CUDA support (system memory only)";
#endif
  if (!priv->cuda_enabled)
    GST_INFO_OBJECT (self, "CUDA memory not offered: %s", priv->cuda_why.c_str ());
  priv->started = TRUE;
  return TRUE;
}

static gboolean
gst_cdn_base_transform_stop (GstBaseTransform * trans)
{
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (trans);
  reset_state (self);
#ifdef CDN_GST_CUDA
  g_mutex_lock (&self->priv->context_lock);
  gst_clear_object (&self->context);
  g_mutex_unlock (&self->priv->context_lock);
#endif
  self->priv->started = FALSE;
  self->priv->cuda_enabled = FALSE;
  self->priv->cuda_why = "not started";
  return TRUE;
}

static GstCaps *
gst_cdn_base_transform_transform_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps,
    GstCaps * filter)
{
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (trans);
  GstPad *other = direction == GST_PAD_SINK ? trans->srcpad : trans->sinkpad;
  GstCaps *templ = gst_pad_get_pad_template_caps (other);
  /* direction SRC: `caps` are the src pad's and the result our sink pad's. */
  GstCaps *result = gst_cdn_transform_caps (caps, templ, cuda_caps_allowed (self), filter, direction == GST_PAD_SRC);
  gst_caps_unref (templ);
  GST_DEBUG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

static gboolean
gst_cdn_base_transform_accept_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps)
{
  gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->accept_caps (trans, direction, caps);
  if (!ret && direction == GST_PAD_SINK)
    warn_unsupported (GST_CDN_BASE_TRANSFORM (trans), caps);
  return ret;
}

static gboolean
gst_cdn_base_transform_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (trans);
  GstVideoInfo in_info, out_info;

  if (!gst_video_info_from_caps (&in_info, incaps) || !gst_video_info_from_caps (&out_info, outcaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("invalid caps"),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  const gboolean in_cuda = gst_cdn_caps_are_cuda (incaps), out_cuda = gst_cdn_caps_are_cuda (outcaps);
  std::string why;
  if ((in_cuda || out_cuda) && !gst_cdn_base_transform_cuda_enabled (self, &why)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("cannot take memory:CUDAMemory without a CUDA context: %s", why.c_str ()),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  cdn::PixelFormat format;
  const std::string refusal = gst_cdn_caps_refusal (incaps, &in_info, &out_info, in_cuda || out_cuda, &format);
  if (!refusal.empty ()) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", refusal.c_str ()),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }

  drain_and_reset_state (self, "new caps");
  self->in_info = in_info;
  self->out_info = out_info;
  self->format = format;
  self->in_cuda_caps = in_cuda;
  self->out_cuda_caps = out_cuda;
  GST_DEBUG_OBJECT (self, "configured %s %dx%d, %s in, %s out", gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&in_info)),
      GST_VIDEO_INFO_WIDTH (&in_info), GST_VIDEO_INFO_HEIGHT (&in_info), in_cuda ? "CUDA" : "system",
      out_cuda ? "CUDA" : "system");
  return TRUE;
}

static gboolean
gst_cdn_base_transform_get_unit_size (GstBaseTransform * trans, GstCaps * caps, gsize * size)
{
  GstVideoInfo info;
  (void) trans;
  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

static gboolean
gst_cdn_base_transform_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query, GstQuery * query)
{
  return GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans, decide_query, query) &&
      gst_cdn_propose_allocation (GST_CDN_BASE_TRANSFORM (trans), decide_query, query);
}

static gboolean
gst_cdn_base_transform_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  return gst_cdn_decide_allocation (GST_CDN_BASE_TRANSFORM (trans), query) &&
      GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans, query);
}

/* Metas that stay true of the output: those tagged only with what a denoiser
 * keeps (geometry, orientation, colorimetry), as GstVideoFilter decides, plus the
 * untagged ones GstBaseTransform keeps. A meta tagged with the memory (video
 * meta: our pool adds its own) or with anything else is left behind. */
static gboolean
gst_cdn_base_transform_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf, GstMeta * meta,
    GstBuffer * inbuf)
{
  static const gchar *const kept[] = { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_ORIENTATION_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_COLORSPACE_STR
  };
  const gchar *const *tags = gst_meta_api_type_get_tags (meta->info->api);
  if (!tags)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->transform_meta (trans, outbuf, meta, inbuf);
  for (; *tags; tags++)
    if (std::find_if (std::begin (kept), std::end (kept), [&] (const gchar * k) {
          return g_strcmp0 (k, *tags) == 0; }) == std::end (kept))
      return FALSE;
  return TRUE;
}

static gboolean
gst_cdn_base_transform_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (trans);

  switch (GST_QUERY_TYPE (query)) {
#ifdef CDN_GST_CUDA
    case GST_QUERY_CONTEXT: {
      g_mutex_lock (&self->priv->context_lock);
      GstCudaContext *ctx = self->context ? (GstCudaContext *) gst_object_ref (self->context) : nullptr;
      g_mutex_unlock (&self->priv->context_lock);
      gboolean handled = gst_cuda_handle_context_query (GST_ELEMENT (self), query, ctx);
      gst_clear_object (&ctx);
      if (handled)
        return TRUE;
      break;
    }
#endif
    case GST_QUERY_CAPS: {
      gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query);
      if (ret && direction == GST_PAD_SINK) {
        GstCaps *filter = nullptr, *result = nullptr;
        gst_query_parse_caps (query, &filter);
        gst_query_parse_caps_result (query, &result);
        /* Upstream offers only raw video we cannot take: say why, once. */
        if (filter && result && gst_caps_is_empty (result))
          warn_unsupported (self, filter);
      }
      return ret;
    }
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query);
}

static gboolean
gst_cdn_base_transform_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (trans);
    GstCdnBaseTransformClass *klass = GST_CDN_BASE_TRANSFORM_GET_CLASS (self);
    if (klass->flush)
      klass->flush (self);
    else
      reset_state (self);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* Like nvcodec's cudabasetransform: CUDA memory from another context (a decoder
 * that made its own) makes us adopt that context, when cuda-device-id allows, so
 * that we filter it in place and our output stays on the producer's context. */
void
gst_cdn_base_transform_adopt_context (GstCdnBaseTransform * self, GstBuffer * buffer)
{
#ifdef CDN_GST_CUDA
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  if (!self->priv->cuda_enabled || !gst_cdn_buffer_is_cuda (buffer))
    return;
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buffer, 0));
  if (cmem->context == self->context)
    return;

  const gint id = device_id (self);
  if (id >= 0) {
    guint mem_device = 0;
    g_object_get (cmem->context, "cuda-device-id", &mem_device, NULL);
    if (mem_device != (guint) id) {
      if (!self->priv->warned_cross_context)
        GST_WARNING_OBJECT (self, "input CUDA memory is on device %u, cuda-device-id is %d: "
            "frames go through host memory", mem_device, id);
      self->priv->warned_cross_context = TRUE;
      return;
    }
  }

  GST_INFO_OBJECT (self, "adopting the input's CUDA context %" GST_PTR_FORMAT " (was %" GST_PTR_FORMAT ")",
      cmem->context, self->context);
  drain_and_reset_state (self, "a change of CUDA context");
  g_mutex_lock (&self->priv->context_lock);
  gst_object_replace ((GstObject **) & self->context, GST_OBJECT (cmem->context));
  g_mutex_unlock (&self->priv->context_lock);
  /* Our output pool belongs to the old context: decide allocation again. */
  gst_base_transform_reconfigure_src (trans);
#else
  (void) self;
  (void) buffer;
#endif
}

static void
gst_cdn_base_transform_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  gst_cdn_base_transform_adopt_context (GST_CDN_BASE_TRANSFORM (trans), buffer);
}

bool
gst_cdn_base_transform_on_device (GstCdnBaseTransform * self, GstBuffer * buffer, bool cuda_backend)
{
#ifdef CDN_GST_CUDA
  return cuda_backend && self->priv->cuda_enabled && gst_cdn_buffer_on_context (buffer, self->context);
#else
  (void) self;
  (void) buffer;
  (void) cuda_backend;
  return false;
#endif
}

/* ---- class ---------------------------------------------------------------- */

static void
gst_cdn_base_transform_class_init (GstCdnBaseTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cdn_base_transform_set_property;
  gobject_class->get_property = gst_cdn_base_transform_get_property;
  gobject_class->finalize = gst_cdn_base_transform_finalize;

  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1 = automatic: the context of the neighbours or of the "
          "incoming CUDA memory, else device 0)",
          -1, G_MAXINT, DEFAULT_DEVICE_ID,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | GST_PARAM_DOC_SHOW_DEFAULT |
              G_PARAM_STATIC_STRINGS)));

  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_set_context);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_stop);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_transform_caps);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_accept_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_set_caps);
  trans_class->get_unit_size = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_get_unit_size);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_decide_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_query);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_sink_event);
  trans_class->before_transform = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_before_transform);
  trans_class->transform_meta = GST_DEBUG_FUNCPTR (gst_cdn_base_transform_transform_meta);

  GST_DEBUG_CATEGORY_INIT (gst_cdn_base_transform_debug, "cdnbasetransform", 0,
      "cudadenoise plugin: shared CUDA plumbing");

  gst_type_mark_as_plugin_api (GST_TYPE_CDN_BASE_TRANSFORM, (GstPluginAPIFlags) 0);
}

static void
gst_cdn_base_transform_init (GstCdnBaseTransform * self)
{
  self->priv = new GstCdnBaseTransformPrivate ();
  g_mutex_init (&self->priv->context_lock);
  gst_video_info_init (&self->in_info);
  gst_video_info_init (&self->out_info);
  self->format = cdn::PixelFormat::GRAY8;
  self->in_cuda_caps = self->out_cuda_caps = FALSE;
  /* We never pass a buffer through: the sink pad's caps answer our preference
   * (transform_caps: CUDA memory first), not downstream's untransformed caps first. */
  gst_base_transform_set_prefer_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}
