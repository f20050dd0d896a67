/* cudadenoise: per-frame PI-PD and hybrid PI-PD denoising on the GPU or the CPU.
 *
 * A thin layer over kernels/denoiser.h: this file maps buffers to cdn::FrameView
 * and hands them to a cdn::FrameDenoiser; the filters themselves live in kernels/.
 */

/**
 * SECTION:element-cudadenoise
 * @title: cudadenoise
 * @short_description: PI-PD / hybrid PI-PD video denoiser on CUDA or the CPU
 *
 * Denoises every frame with PI-PD (poly-isoline pixel denoising: each pixel
 * becomes the mean along the most likely iso-grey-level polyline through it,
 * grown segment by segment while a GLRT accepts it) or with hybrid PI-PD, which
 * adds an edge detector: in locally smooth regions it averages the whole window,
 * on a single edge the pixel's half-plane, elsewhere it keeps the PI-PD value.
 * The numeric parameters follow the paper (segment length l = 5, maximum isoline
 * length n = 25, Tmax = 1, T2max = 2).
 *
 * With CUDA memory on both pads (for example after nvh264dec) frames stay on the
 * GPU: the element shares the decoder's CUDA context and filters its memory in
 * place of a copy. System memory works too: the CUDA backend uploads and
 * downloads itself, and without a GPU (or with backend=cpu) the CPU backend
 * filters the same frames to the same values.
 *
 * Parameters may change while playing; they apply from the next frame.
 * segment-length and max-length are checked as a pair: a max-length that is not
 * a multiple of segment-length waits until the other one is set to match, and
 * meanwhile frames use the last consistent pair.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudadenoise mode=hybrid ! cudadownload ! videoconvert ! autovideosink
 * ]| Decodes on the GPU and denoises there, without a copy through the host.
 * |[
 * gst-launch-1.0 videotestsrc ! cudaaddnoise sigma=20 ! cudadenoise backend=cpu ! \
 *     videoconvert ! autovideosink
 * ]| Adds noise to a test picture and removes it on the CPU.
 *
 * Since: 0.1
 */

#include "gstcudadenoise.h"

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "denoiser.h"
#include "error.h"
#include "settings.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_denoise_debug);
#define GST_CAT_DEFAULT gst_cuda_denoise_debug

enum
{
  PROP_0,
  PROP_MODE,
  PROP_PLANES,
  PROP_BACKEND,
  /* then one property per cdn::param_specs() entry */
  PROP_PARAM_FIRST,
};

/* Defaults are the library's: DenoiseSettings{} and the parameter table. */
static const cdn::DenoiseSettings DEFAULT_SETTINGS {};
#define DEFAULT_MODE DEFAULT_SETTINGS.mode
#define DEFAULT_PLANES DEFAULT_SETTINGS.planes
#define DEFAULT_BACKEND cdn::Backend::Auto

/* What the properties say; guarded by GstCudaDenoise::lock. */
struct Settings
{
  cdn::DenoiseSettings requested = DEFAULT_SETTINGS; /* read back by get_property */
  cdn::DenoiseSettings effective = DEFAULT_SETTINGS; /* the last valid combination: what frames use */
  cdn::Backend backend = DEFAULT_BACKEND;
  guint64 generation = 0; /* bumped whenever `effective` or `requested` changes */
};

/* What the stream built; dropped by reset_state (caps, flush, context, stop). */
struct State
{
  std::unique_ptr<cdn::FrameDenoiser> denoiser;
  guint64 generation = G_MAXUINT64; /* settings generation the denoiser has */
  guint64 warned_pending = G_MAXUINT64; /* generation whose pending pair we reported */
  guint64 frames = 0;
  bool host_fallback_logged = false;
};

struct _GstCudaDenoise
{
  GstCdnBaseTransform parent;

  GMutex lock;
  Settings *settings;
  State *state;
  /* Backend chosen at start (Cuda or Cpu). */
  cdn::Backend backend;
};

#define gst_cuda_denoise_parent_class parent_class
G_DEFINE_TYPE (GstCudaDenoise, gst_cuda_denoise, GST_TYPE_CDN_BASE_TRANSFORM);

/* ---- enum types ------------------------------------------------------------ */

GType
gst_cuda_denoise_mode_get_type (void)
{
  static gsize type = 0;
  if (g_once_init_enter (&type)) {
    static GEnumValue values[] = {
      {(gint) cdn::Mode::Pipd, "PI-PD: mean along the best poly-isoline through each pixel", nullptr},
      {(gint) cdn::Mode::Hybrid, "Hybrid PI-PD: PI-PD plus an edge detector (smooth regions and single edges "
                                 "averaged over the window or the pixel's half-plane)", nullptr},
      {0, nullptr, nullptr},
    };
    values[0].value_nick = cdn::mode_name (cdn::Mode::Pipd);
    values[1].value_nick = cdn::mode_name (cdn::Mode::Hybrid);
    g_once_init_leave (&type, g_enum_register_static ("GstCudaDenoiseMode", values));
  }
  return (GType) type;
}

GType
gst_cuda_denoise_planes_get_type (void)
{
  static gsize type = 0;
  if (g_once_init_enter (&type)) {
    static GEnumValue values[] = {
      {(gint) cdn::PlaneSelection::Luma, "Filter luma only; chroma is copied", nullptr},
      {(gint) cdn::PlaneSelection::All, "Filter luma and both chroma components", nullptr},
      {0, nullptr, nullptr},
    };
    values[0].value_nick = cdn::planes_name (cdn::PlaneSelection::Luma);
    values[1].value_nick = cdn::planes_name (cdn::PlaneSelection::All);
    g_once_init_leave (&type, g_enum_register_static ("GstCudaDenoisePlanes", values));
  }
  return (GType) type;
}

GType
gst_cuda_denoise_backend_get_type (void)
{
  static gsize type = 0;
  if (g_once_init_enter (&type)) {
    static GEnumValue values[] = {
      {(gint) cdn::Backend::Auto, "CUDA when a device is usable, else the CPU", nullptr},
      {(gint) cdn::Backend::Cuda, "CUDA kernels (fails to start without a usable device)", nullptr},
      {(gint) cdn::Backend::Cpu, "CPU reference (system memory only)", nullptr},
      {0, nullptr, nullptr},
    };
    values[0].value_nick = cdn::backend_name (cdn::Backend::Auto);
    values[1].value_nick = cdn::backend_name (cdn::Backend::Cuda);
    values[2].value_nick = cdn::backend_name (cdn::Backend::Cpu);
    g_once_init_leave (&type, g_enum_register_static ("GstCudaDenoiseBackend", values));
  }
  return (GType) type;
}

/* ---- settings ---------------------------------------------------------------- */

/* The table also holds the parameters of the temporal modes (NLM-3D), which this
 * per-frame element does not offer yet: a parameter is PI-PD's when setting it
 * changes DenoiseSettings::pipd. */
static bool
is_pipd_param (const cdn::ParamSpec & p)
{
  cdn::DenoiseSettings a, b;
  p.set (b, p.def != p.min ? p.min : p.max);
  return a.pipd.segment_length != b.pipd.segment_length || a.pipd.max_length != b.pipd.max_length ||
      a.pipd.tmax != b.pipd.tmax || a.pipd.t2max != b.pipd.t2max || a.pipd.thickness != b.pipd.thickness;
}

static std::string
pair_text (const cdn::DenoiseSettings & s)
{
  return "segment-length=" + std::to_string (s.pipd.segment_length) +
      " max-length=" + std::to_string (s.pipd.max_length);
}

/* The requested settings with the last valid segment-length/max-length pair. */
static cdn::DenoiseSettings
with_pair_of (cdn::DenoiseSettings s, const cdn::DenoiseSettings & pair)
{
  s.pipd.segment_length = pair.pipd.segment_length;
  s.pipd.max_length = pair.pipd.max_length;
  return s;
}

/* Applies `candidate` as the requested settings when valid. A candidate whose
 * only fault is the segment-length/max-length pairing is kept as requested (the
 * other one of the pair may be on its way) while frames keep the last valid
 * pair; any other fault rejects it, with a warning, and nothing changes.
 * Called with the lock held. Returns FALSE when rejected. */
static gboolean
apply_candidate (GstCudaDenoise * self, const cdn::DenoiseSettings & candidate, const gchar * what)
{
  Settings *st = self->settings;
  try {
    cdn::validate (candidate);
    st->requested = st->effective = candidate;
    st->generation++;
    return TRUE;
  } catch (const cdn::InvalidArgument & e) {
    cdn::DenoiseSettings alone = candidate;
    alone.pipd.max_length = alone.pipd.segment_length; /* a pair that always fits */
    try {
      cdn::validate (alone);
    } catch (const cdn::InvalidArgument & e2) {
      GST_WARNING_OBJECT (self, "rejected %s: %s", what, e2.what ());
      g_warning ("%s: rejected %s: %s; keeping the previous value", GST_OBJECT_NAME (self), what, e2.what ());
      return FALSE;
    }
    st->requested = candidate;
    st->effective = with_pair_of (candidate, st->effective);
    st->generation++;
    GST_INFO_OBJECT (self, "%s: %s; frames use %s until the pair fits", what, e.what (),
        pair_text (st->effective).c_str ());
    return TRUE;
  }
}

static void
gst_cuda_denoise_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (object);
  const auto & specs = cdn::param_specs ();

  g_mutex_lock (&self->lock);
  Settings *st = self->settings;
  cdn::DenoiseSettings candidate = st->requested;
  switch (prop_id) {
    case PROP_MODE:
      candidate.mode = (cdn::Mode) g_value_get_enum (value);
      apply_candidate (self, candidate, "mode");
      break;
    case PROP_PLANES:
      candidate.planes = (cdn::PlaneSelection) g_value_get_enum (value);
      apply_candidate (self, candidate, "planes");
      break;
    case PROP_BACKEND:
      st->backend = (cdn::Backend) g_value_get_enum (value);
      break;
    default:
      if (prop_id >= PROP_PARAM_FIRST && prop_id < PROP_PARAM_FIRST + specs.size ()) {
        const cdn::ParamSpec & spec = specs[prop_id - PROP_PARAM_FIRST];
        const double v = spec.integer ? (double) g_value_get_int (value) : g_value_get_double (value);
        spec.set (candidate, v);
        gchar *what = g_strdup_printf ("%s = %g", spec.name, v);
        apply_candidate (self, candidate, what);
        g_free (what);
      } else {
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      }
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_cuda_denoise_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (object);
  const auto & specs = cdn::param_specs ();

  g_mutex_lock (&self->lock);
  const Settings *st = self->settings;
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, (gint) st->requested.mode);
      break;
    case PROP_PLANES:
      g_value_set_enum (value, (gint) st->requested.planes);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, (gint) st->backend);
      break;
    default:
      if (prop_id >= PROP_PARAM_FIRST && prop_id < PROP_PARAM_FIRST + specs.size ()) {
        const cdn::ParamSpec & spec = specs[prop_id - PROP_PARAM_FIRST];
        const double v = spec.get (st->requested);
        if (spec.integer)
          g_value_set_int (value, (gint) v);
        else
          g_value_set_double (value, v);
      } else {
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      }
      break;
  }
  g_mutex_unlock (&self->lock);
}

/* ---- state ------------------------------------------------------------------- */

static void
gst_cuda_denoise_reset_state (GstCdnBaseTransform * base)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (base);
  if (self->state->denoiser) {
    /* A CUDA denoiser frees its device memory and stream in its context. */
    GstCdnContextGuard push (base);
    self->state->denoiser.reset ();
  }
  *self->state = State ();
}

static gboolean
gst_cuda_denoise_want_cuda (GstCdnBaseTransform * base)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (base);
  g_mutex_lock (&self->lock);
  const gboolean want = self->settings->backend != cdn::Backend::Cpu;
  g_mutex_unlock (&self->lock);
  return want;
}

static gboolean
gst_cuda_denoise_start (GstBaseTransform * trans)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (trans);

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans))
    return FALSE;

  g_mutex_lock (&self->lock);
  const cdn::Backend requested = self->settings->backend;
  const bool pending = self->settings->requested.pipd.segment_length != self->settings->effective.pipd.segment_length ||
      self->settings->requested.pipd.max_length != self->settings->effective.pipd.max_length;
  const std::string pending_text = pair_text (self->settings->requested) + " do not fit: frames use " +
      pair_text (self->settings->effective);
  g_mutex_unlock (&self->lock);

  std::string why;
  const gboolean cuda = gst_cdn_base_transform_cuda_enabled (base, &why);
  if (requested == cdn::Backend::Cuda && !cuda) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("backend=cuda but CUDA cannot be used"), ("%s", why.c_str ()));
    return FALSE;
  }
  self->backend = cuda ? cdn::Backend::Cuda : cdn::Backend::Cpu;
  if (requested == cdn::Backend::Auto && !cuda)
    GST_INFO_OBJECT (self, "backend=auto: using the CPU backend (%s)", why.c_str ());
  else
    GST_INFO_OBJECT (self, "using the %s backend", cdn::backend_name (self->backend));
  if (pending)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("%s", pending_text.c_str ()),
        ("max-length must be a positive multiple of segment-length"));
  return TRUE;
}

/* Creates the denoiser or hands it new settings. Streaming thread, CUDA context
 * pushed when the backend is CUDA. Throws cdn::Error. */
static void
ensure_denoiser (GstCudaDenoise * self)
{
  State *state = self->state;
  g_mutex_lock (&self->lock);
  const cdn::DenoiseSettings settings = self->settings->effective;
  const guint64 generation = self->settings->generation;
  const bool pending = self->settings->requested.pipd.segment_length != settings.pipd.segment_length ||
      self->settings->requested.pipd.max_length != settings.pipd.max_length;
  const std::string pending_text = pair_text (self->settings->requested) + " do not fit: frames use " +
      pair_text (settings);
  g_mutex_unlock (&self->lock);

  if (pending && state->warned_pending != generation) {
    state->warned_pending = generation;
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("%s", pending_text.c_str ()),
        ("max-length must be a positive multiple of segment-length"));
  }
  if (!state->denoiser) {
    state->denoiser = cdn::FrameDenoiser::create (self->backend, settings);
    state->generation = generation;
    GST_DEBUG_OBJECT (self, "created a %s denoiser", cdn::backend_name (state->denoiser->backend ()));
  } else if (state->generation != generation) {
    state->denoiser->set_settings (settings);
    state->generation = generation;
    GST_DEBUG_OBJECT (self, "settings changed: mode %s, planes %s, %s", cdn::mode_name (settings.mode),
        cdn::planes_name (settings.planes), pair_text (settings).c_str ());
  }
}

static GstFlowReturn
gst_cuda_denoise_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (trans);
  State *state = self->state;

  /* Device pointers only for CUDA memory of our own context: the CUDA backend
   * filters those in place of a copy. Anything else is mapped for the CPU (the
   * CUDA backend then uploads and downloads itself). */
  bool in_device = false, out_device = false;
#ifdef CDN_GST_CUDA
  if (self->backend == cdn::Backend::Cuda) {
    auto ours = [base] (GstBuffer * b) {
      return gst_cdn_buffer_is_cuda (b) && GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (b, 0))->context == base->context;
    };
    in_device = ours (inbuf);
    out_device = ours (outbuf);
  }
#endif
  if (gst_cdn_buffer_is_cuda (inbuf) != in_device || gst_cdn_buffer_is_cuda (outbuf) != out_device) {
    if (!state->host_fallback_logged)
      GST_INFO_OBJECT (self, "CUDA memory mapped for the CPU (%s backend or another context)",
          cdn::backend_name (self->backend));
    state->host_fallback_logged = true;
  }

  GstCdnContextGuard push (base);
  if (!push.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("could not make the CUDA context current"), (nullptr));
    return GST_FLOW_ERROR;
  }

  GstCdnMappedFrame in, out;
  std::string error;
  if (!in.map (inbuf, &base->in_info, GST_MAP_READ, in_device, &error) ||
      !out.map (outbuf, &base->out_info, GST_MAP_WRITE, out_device, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("could not map a frame"), ("%s", error.c_str ()));
    return GST_FLOW_ERROR;
  }

  try {
    ensure_denoiser (self);
    state->denoiser->process (in.view (), out.view ());
  } catch (const cdn::InvalidArgument & e) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("denoising failed: %s", e.what ()), ("invalid frame or settings"));
    return GST_FLOW_ERROR;
  } catch (const cdn::Error & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("denoising failed: %s", e.what ()),
        ("%s backend", cdn::backend_name (self->backend)));
    return GST_FLOW_ERROR;
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("denoising failed: %s", e.what ()), (nullptr));
    return GST_FLOW_ERROR;
  }
  state->frames++;
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " %s -> %s", state->frames,
      in_device ? "device" : "host", out_device ? "device" : "host");
  return GST_FLOW_OK;
}

/* ---- class ------------------------------------------------------------------- */

static void
gst_cuda_denoise_finalize (GObject * object)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (object);
  delete self->state;
  delete self->settings;
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_denoise_class_init (GstCudaDenoiseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCdnBaseTransformClass *cdn_class = GST_CDN_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags live = (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
      GST_PARAM_DOC_SHOW_DEFAULT | G_PARAM_STATIC_STRINGS);

  gobject_class->set_property = gst_cuda_denoise_set_property;
  gobject_class->get_property = gst_cuda_denoise_get_property;
  gobject_class->finalize = gst_cuda_denoise_finalize;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "Denoising algorithm", GST_TYPE_CUDA_DENOISE_MODE,
          (gint) DEFAULT_MODE, live));
  g_object_class_install_property (gobject_class, PROP_PLANES,
      g_param_spec_enum ("planes", "Planes", "Colour components to filter", GST_TYPE_CUDA_DENOISE_PLANES,
          (gint) DEFAULT_PLANES, live));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend", "Where frames are filtered", GST_TYPE_CUDA_DENOISE_BACKEND,
          (gint) DEFAULT_BACKEND,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | GST_PARAM_DOC_SHOW_DEFAULT |
              G_PARAM_STATIC_STRINGS)));

  /* The numeric parameters come from the library's table, like the tools' flags. */
  const auto & specs = cdn::param_specs ();
  for (size_t i = 0; i < specs.size (); i++) {
    const cdn::ParamSpec & p = specs[i];
    if (!is_pipd_param (p))
      continue;
    GParamSpec *pspec = p.integer
        ? g_param_spec_int (p.name, p.name, p.blurb, (gint) p.min, (gint) p.max, (gint) p.def, live)
        : g_param_spec_double (p.name, p.name, p.blurb, p.min, p.max, p.def, live);
    g_object_class_install_property (gobject_class, PROP_PARAM_FIRST + (guint) i, pspec);
  }

  gst_element_class_set_static_metadata (element_class, "CUDA video denoiser", "Filter/Effect/Video",
      "Denoises video frame by frame with PI-PD or hybrid PI-PD (isoline filters), "
      "on CUDA memory without copies or on system memory, on the GPU or the CPU",
      "cudadenoise developers");
  gst_cdn_base_transform_add_pad_templates (element_class);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_denoise_start);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_denoise_transform);
  cdn_class->want_cuda = GST_DEBUG_FUNCPTR (gst_cuda_denoise_want_cuda);
  cdn_class->reset_state = GST_DEBUG_FUNCPTR (gst_cuda_denoise_reset_state);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_DENOISE_MODE, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_DENOISE_PLANES, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_DENOISE_BACKEND, (GstPluginAPIFlags) 0);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_denoise_debug, "cudadenoise", 0, "PI-PD video denoiser");
}

static void
gst_cuda_denoise_init (GstCudaDenoise * self)
{
  g_mutex_init (&self->lock);
  self->settings = new Settings ();
  self->state = new State ();
  self->backend = cdn::Backend::Cpu;
}
