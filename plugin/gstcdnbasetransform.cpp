/* GstCdnBaseTransform: CUDA context sharing, caps and allocation shared by the
 * cudadenoise plugin's elements. See gstcdnbasetransform.h. */
#include "gstcdnbasetransform.h"

#include <set>
#include <string>
#include <vector>

#include "denoiser.h"

GST_DEBUG_CATEGORY_STATIC (gst_cdn_base_transform_debug);
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
  /* Unsupported-caps explanations already posted since start. */
  std::set<std::string> warned;
  gboolean warned_cross_context = FALSE;
};

#define gst_cdn_base_transform_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE (GstCdnBaseTransform, gst_cdn_base_transform, GST_TYPE_BASE_TRANSFORM);

/* ---- helpers --------------------------------------------------------------- */

gboolean
gst_cdn_pixel_format (GstVideoFormat format, cdn::PixelFormat * out)
{
  const gchar *name = gst_video_format_to_string (format);
  return name && cdn::parse_format (name, out);
}

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

static gboolean
caps_features_are_cuda (GstCapsFeatures * features)
{
#ifdef CDN_GST_CUDA
  return features && !gst_caps_features_is_any (features) &&
      gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
#else
  (void) features;
  return FALSE;
#endif
}

static gboolean
caps_are_cuda (GstCaps * caps)
{
  return caps && gst_caps_get_size (caps) > 0 && caps_features_are_cuda (gst_caps_get_features (caps, 0));
}

static GstCaps *
template_caps (void)
{
  GstCaps *caps = gst_caps_new_empty ();
#ifdef CDN_GST_CUDA
  gst_caps_append (caps, gst_caps_from_string (GST_VIDEO_CAPS_MAKE_WITH_FEATURES (
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_CDN_CUDA_FORMATS)));
#endif
  gst_caps_append (caps, gst_caps_from_string (GST_VIDEO_CAPS_MAKE (GST_CDN_SYSTEM_FORMATS)));
  return caps;
}

void
gst_cdn_base_transform_add_pad_templates (GstElementClass * klass)
{
  GstCaps *caps = template_caps ();
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

/* A readable reason why `caps` (offered to our sink pad) cannot be taken, or ""
 * when they are not raw video or something in them is supported. */
static std::string
explain_unsupported (GstCaps * caps)
{
  if (!caps || gst_caps_is_any (caps) || gst_caps_is_empty (caps))
    return "";
  GstCaps *ours = template_caps ();
  GstCaps *system = gst_caps_from_string (GST_VIDEO_CAPS_MAKE (GST_CDN_SYSTEM_FORMATS));
  std::vector<std::string> offered;
  gboolean format_ok_in_system = FALSE, cuda_offered = FALSE;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    GstCaps *one = gst_caps_copy_nth (caps, i);
    const gboolean ok = gst_caps_can_intersect (one, ours);
    if (!gst_structure_has_name (s, "video/x-raw") || ok) {
      gst_caps_unref (one);
      gst_caps_unref (ours);
      gst_caps_unref (system);
      return "";
    }
    /* Would this format do in system memory? */
    GstCaps *as_system = gst_caps_new_full (gst_structure_copy (s), NULL);
    format_ok_in_system |= gst_caps_can_intersect (as_system, system);
    gst_caps_unref (as_system);
    gst_caps_unref (one);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    cuda_offered |= f && !gst_caps_features_is_any (f) && !gst_caps_features_is_equal (f, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY);
    gchar *fs = f ? gst_caps_features_to_string (f) : g_strdup ("memory:SystemMemory");
    const GValue *v = gst_structure_get_value (s, "format");
    gchar *vs = v ? gst_value_serialize (v) : g_strdup ("(any)");
    offered.push_back (std::string ("format ") + vs + " in " + fs);
    g_free (vs);
    g_free (fs);
  }
  gst_caps_unref (ours);
  gst_caps_unref (system);
  std::string msg = "cannot take video/x-raw with ";
  for (size_t i = 0; i < offered.size () && i < 4; i++)
    msg += (i ? "; " : "") + offered[i];
  if (offered.size () > 4)
    msg += "; ...";
#ifdef CDN_GST_CUDA
  msg += ". Supported: NV12, I420, P010_10LE, P016_LE, Y444 in memory:CUDAMemory or system memory, "
      "GRAY8 and GRAY16_LE in system memory only.";
#else
  msg += ". Supported: NV12, I420, P010_10LE, P016_LE, Y444, GRAY8, GRAY16_LE in system memory "
      "(this build has no GStreamer CUDA support).";
#endif
  if (cuda_offered && format_ok_in_system)
    msg += " Put a download element (cudadownload) in front of it.";
  else
    msg += " Put videoconvert (or cudaconvert) in front of it.";
  return msg;
}

/* Caps whose structures all carry memory:CUDAMemory. */
static gboolean
caps_all_cuda (GstCaps * caps)
{
  if (!caps || gst_caps_is_any (caps) || gst_caps_is_empty (caps))
    return FALSE;
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    if (!caps_features_are_cuda (gst_caps_get_features (caps, i)))
      return FALSE;
  return TRUE;
}

static void
warn_unsupported (GstCdnBaseTransform * self, GstCaps * caps)
{
  std::string msg = explain_unsupported (caps);
  if (msg.empty () && caps_all_cuda (caps) && !cuda_caps_allowed (self)) {
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

/* ---- GstCdnContextGuard, GstCdnMappedFrame ----------------------------------- */

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
    /* Not under context_lock: this calls our set_context, which takes it. */
    if (gst_cuda_ensure_element_context (GST_ELEMENT_CAST (self), id, &self->context)) {
      priv->cuda_enabled = TRUE;
      priv->cuda_why.clear ();
      GST_INFO_OBJECT (self, "using CUDA context %" GST_PTR_FORMAT, self->context);
    } else {
      priv->cuda_why = "no CUDA context could be created on device " + std::to_string (id < 0 ? 0 : id);
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
  const gboolean cuda = cuda_caps_allowed (self);
  GstPad *other = direction == GST_PAD_SINK ? trans->srcpad : trans->sinkpad;
  GstCaps *templ = gst_pad_get_pad_template_caps (other);
  GstCaps *tmp;

  if (gst_caps_is_any (caps)) {
    tmp = gst_caps_ref (templ);
  } else {
    /* Same format and size; the incoming memory kind first, then the other. */
    tmp = gst_caps_new_empty ();
    for (int pass = 0; pass < 2; pass++) {
      for (guint i = 0; i < gst_caps_get_size (caps); i++) {
        GstCapsFeatures *f = gst_caps_get_features (caps, i);
        if (f && gst_caps_features_is_any (f))
          continue;
        GstCapsFeatures *nf;
        if (pass == 0)
          nf = f ? gst_caps_features_copy (f) : nullptr;
        else if (caps_features_are_cuda (f))
          nf = gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, NULL);
#ifdef CDN_GST_CUDA
        else if (cuda)
          nf = gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL);
#endif
        else
          continue;
        tmp = gst_caps_merge_structure_full (tmp, gst_structure_copy (gst_caps_get_structure (caps, i)), nf);
      }
    }
  }

  GstCaps *result = gst_caps_intersect_full (tmp, templ, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (tmp);
  gst_caps_unref (templ);

  if (!cuda) {
    result = gst_caps_make_writable (result);
    for (gint i = (gint) gst_caps_get_size (result) - 1; i >= 0; i--)
      if (caps_features_are_cuda (gst_caps_get_features (result, i)))
        gst_caps_remove_structure (result, i);
  }

  if (filter) {
    GstCaps *f = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = f;
  }
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
  cdn::PixelFormat format;
  if (!gst_cdn_pixel_format (GST_VIDEO_INFO_FORMAT (&in_info), &format) ||
      GST_VIDEO_INFO_FORMAT (&in_info) != GST_VIDEO_INFO_FORMAT (&out_info) ||
      GST_VIDEO_INFO_WIDTH (&in_info) != GST_VIDEO_INFO_WIDTH (&out_info) ||
      GST_VIDEO_INFO_HEIGHT (&in_info) != GST_VIDEO_INFO_HEIGHT (&out_info)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s", explain_unsupported (incaps).empty () ? "input and output differ in format or size"
                                                     : explain_unsupported (incaps).c_str ()),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }

  const gboolean in_cuda = caps_are_cuda (incaps), out_cuda = caps_are_cuda (outcaps);
  std::string why;
  if ((in_cuda || out_cuda) && !gst_cdn_base_transform_cuda_enabled (self, &why)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("cannot take memory:CUDAMemory without a CUDA context: %s", why.c_str ()),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  for (gboolean cuda : {in_cuda, out_cuda}) {
    /* GStreamer 1.22's CUDA allocator places I420's V plane height/2 rows after U,
     * so with an odd height U's last row and V's first row are the same memory. */
    if (cuda && format == cdn::PixelFormat::I420 && GST_VIDEO_INFO_HEIGHT (&in_info) % 2 != 0) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("I420 with an odd height (%d) is not supported in CUDA memory", GST_VIDEO_INFO_HEIGHT (&in_info)),
          ("GStreamer 1.22's CUDA allocator overlaps the U and V planes by one row at odd heights; "
           "use NV12, an even height or system memory"));
      return FALSE;
    }
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

/* A pool for `caps`: CUDA memory on our context, or system memory. */
static GstBufferPool *
new_pool (GstCdnBaseTransform * self, GstCaps * caps)
{
#ifdef CDN_GST_CUDA
  if (caps_are_cuda (caps) && self->context)
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

static gboolean
gst_cdn_base_transform_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query, GstQuery * query)
{
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (trans);
  GstCaps *caps = nullptr;
  GstVideoInfo info;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans, decide_query, query))
    return FALSE;
  if (!decide_query) /* passthrough */
    return TRUE;

  gst_query_parse_allocation (query, &caps, nullptr);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  gboolean can_pool = TRUE;
#ifdef CDN_GST_CUDA
  can_pool = !caps_are_cuda (caps) || self->context != nullptr;
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

static gboolean
gst_cdn_base_transform_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (trans);
  GstCaps *outcaps = nullptr;
  GstBufferPool *pool = nullptr;
  guint size = 0, min = 0, max = 0;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &outcaps, nullptr);
  if (!outcaps || !gst_video_info_from_caps (&info, outcaps))
    return FALSE;
  const gboolean cuda = caps_are_cuda (outcaps);
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

  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans, query);
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
static void
gst_cdn_base_transform_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
#ifdef CDN_GST_CUDA
  GstCdnBaseTransform *self = GST_CDN_BASE_TRANSFORM (trans);
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
  (void) trans;
  (void) buffer;
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
}
