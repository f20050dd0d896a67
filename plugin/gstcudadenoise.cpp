/* cudadenoise: PI-PD, hybrid PI-PD, NLM-3D and BM3D denoising on the GPU or the CPU.
 *
 * A thin layer over kernels/: this file maps buffers to cdn::FrameView and hands
 * them to a cdn::FrameDenoiser (per-frame modes, GstBaseTransform::transform) or
 * to a cdn::StreamDenoiser (temporal modes, submit_input_buffer/generate_output);
 * the filters themselves live in kernels/.
 */

/**
 * SECTION:element-cudadenoise
 * @title: cudadenoise
 * @short_description: PI-PD / hybrid PI-PD / NLM-3D / BM3D video denoiser on CUDA or the CPU
 *
 * Per-frame modes denoise every frame on its own, with no latency:
 * PI-PD (poly-isoline pixel denoising: each pixel becomes the mean along the
 * most likely iso-grey-level polyline through it, grown segment by segment while
 * a GLRT accepts it) or hybrid PI-PD, which adds an edge detector: in locally
 * smooth regions it averages the whole window, on a single edge the pixel's
 * half-plane, elsewhere it keeps the PI-PD value. The numeric parameters follow
 * the paper (segment length l = 5, maximum isoline length n = 25, Tmax = 1,
 * T2max = 2).
 *
 * The offline mode, bm3d (two-phase BM3D: block matching, collaborative hard
 * thresholding, then Wiener filtering), is per frame too, and the best and by
 * far the slowest; see docs/BM3D.md.
 *
 * The temporal mode, nlm3d (3D non-local means), averages similar patches of
 * the neighbouring frames too. It holds a window of frames: it reports its
 * latency (chunk-size - 1 + temporal-radius + patch-radius frames), drains the
 * window on EOS, caps changes, segments, stream starts and discontinuities,
 * drops it on flush, and sends every frame out once, in order, with its
 * timestamps and flags.
 *
 * With CUDA memory on both pads (for example after nvh264dec) frames stay on the
 * GPU: the element shares the decoder's CUDA context and reads and writes its
 * memory without a host copy. System memory works too: the CUDA backend uploads
 * and downloads itself, and without a GPU (or with backend=cpu) the CPU backend
 * filters the same frames to the same values.
 *
 * Progressive video only: interlaced caps (interlace-mode other than
 * progressive) are refused with an error that says so, since filtering a
 * woven frame as one picture mixes its two fields; deinterlace first.
 *
 * Per-frame parameters may change while playing; they apply from the next
 * frame. segment-length and max-length are checked as a pair: a max-length that
 * is not a multiple of segment-length waits until the other one is set to
 * match, and meanwhile frames use the last consistent pair. While nlm3d runs,
 * changes of the mode, of planes and of the NLM-3D parameters apply at the next
 * stream start (the window is drained with the old settings first).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudadenoise mode=hybrid ! cudadownload ! videoconvert ! autovideosink
 * ]| Decodes on the GPU and denoises there, without a copy through the host.
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudadenoise mode=hybrid direction-prefilter=1 thickness=3 t2max=1 ! \
 *     cudadownload ! videoconvert ! autovideosink
 * ]| The same with the quality settings of docs/PIPD.md: 1.24 ms per 1080p luma
 * plane on an H200 instead of 0.48, and 0.4 to 3.2 dB more on its photos at
 * sigma 25.
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudadenoise mode=nlm3d sigma=15 ! cudadownload ! videoconvert ! autovideosink
 * ]| The temporal mode: 55 frames of latency with the default parameters.
 * |[
 * gst-launch-1.0 videotestsrc ! cudaaddnoise sigma=20 ! cudadenoise backend=cpu ! \
 *     videoconvert ! autovideosink
 * ]| Adds noise to a test picture and removes it on the CPU.
 *
 * Since: 0.1
 */

#include "gstcudadenoise.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "denoiser.h"
#include "error.h"
#include "settings.h"
#include "stream_denoiser.h"

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

struct BufferUnref
{
  void operator() (GstBuffer * b) const { gst_buffer_unref (b); }
};
using BufferPtr = std::unique_ptr<GstBuffer, BufferUnref>;

/* What the stream built; dropped by reset_state (caps, context, stop). Used on
 * the streaming thread only (and by stop, after streaming has stopped). */
struct State
{
  /* Per-frame modes (transform). */
  std::unique_ptr<cdn::FrameDenoiser> denoiser;
  cdn::DenoiseSettings frame_settings;  /* what submit chose for the frame transform() gets */
  guint64 frame_generation = 0;
  guint64 generation = G_MAXUINT64; /* settings generation the denoiser has */
  guint64 warned_pending = G_MAXUINT64; /* generation whose pending pair we reported */
  guint64 frames = 0;
  bool host_fallback_logged = false;

  /* Temporal modes (submit_input_buffer / generate_output). `stream` is set
   * while a temporal mode runs; `pending` holds, for each frame pushed into it
   * and not yet out, a buffer without memory that carries the input's
   * timestamps, offsets, flags and metas, oldest first. */
  std::unique_ptr<cdn::StreamDenoiser> stream;
  std::deque<BufferPtr> pending;
  bool at_stream_start = true; /* nothing pushed since the stream began or was drained */
  /* generate_output's last call gave a buffer: the chain loop stopped on a failed
   * push (not on "no more frames"), so ready frames may still be in the stream. */
  bool loop_interrupted = false;
  guint64 stream_frames_in = 0, stream_frames_out = 0;
};

struct _GstCudaDenoise
{
  GstCdnBaseTransform parent;

  GMutex lock;
  Settings *settings;
  State *state;
  /* Backend chosen at start (Cuda or Cpu). */
  cdn::Backend backend;

  /* Latency bookkeeping, under `lock` (the LATENCY query and set_property come
   * from other threads than the streaming one). */
  gint active_latency_frames;     /* latency_frames() of the StreamDenoiser in use; 0 without one */
  gint fps_n, fps_d;              /* the negotiated framerate (0/1: variable) */
  GstClockTime max_duration;      /* the longest input buffer duration seen, for fps 0/1 */
  GstClockTime reported_latency;  /* our share of the last LATENCY answer; NONE before the first */

  /* Streaming thread: BaseTransform QoS was on and we turned it off for a temporal mode. */
  gboolean qos_overridden;

  /* Set by FLUSH_START and PAUSED->READY (other threads) to abandon a slow frame
   * in progress (bm3d), cleared by FLUSH_STOP and READY->PAUSED. */
  std::atomic<bool> *cancel;
};

#define gst_cuda_denoise_parent_class parent_class
G_DEFINE_TYPE (GstCudaDenoise, gst_cuda_denoise, GST_TYPE_CDN_BASE_TRANSFORM);

/* ---- enum types ------------------------------------------------------------ */

/* Every mode of the library: nick cdn::mode_name, description cdn::mode_description. */
GType
gst_cuda_denoise_mode_get_type (void)
{
  static gsize type = 0;
  if (g_once_init_enter (&type)) {
    const std::vector<cdn::Mode> modes = cdn::all_modes ();
    GEnumValue *values = g_new0 (GEnumValue, modes.size () + 1);
    for (size_t i = 0; i < modes.size (); i++) {
      values[i].value = (gint) modes[i];
      values[i].value_name = cdn::mode_description (modes[i]);
      values[i].value_nick = cdn::mode_name (modes[i]);
    }
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

/* The property blurb of a table entry: its help, then the modes it applies to. */
static const gchar *
param_blurb (const cdn::ParamSpec & p)
{
  std::string modes, temporal;
  int n = 0, per_frame = 0;
  for (cdn::Mode m : cdn::all_modes ())
    if (cdn::param_group_applies (p.group, m)) {
      modes += std::string (n++ ? ", " : "") + cdn::mode_name (m);
      if (cdn::is_temporal (m))
        temporal += std::string (temporal.empty ()? "" : ", ") + cdn::mode_name (m);
      else
        per_frame++;
    }
  std::string blurb = std::string (p.blurb) + ". Applies to mode" + (n > 1 ? "s " : " ") + modes;
  if (p.word) {
    gchar value[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd (value, sizeof (value), "%g", p.word_value);
    blurb += std::string ("; this property takes ") + value + " for " + p.word;
  }
  if (!temporal.empty ())
    blurb += per_frame ? "; changes while playing apply at the next stream start in " + temporal +
        ", from the next frame otherwise" : std::string ("; changes while playing apply at the next stream start");
  return g_intern_string (blurb.c_str ());
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

/* Two settings give the same temporal stream. */
static bool
same_stream_settings (const cdn::DenoiseSettings & a, const cdn::DenoiseSettings & b)
{
  return a.mode == b.mode && a.planes == b.planes && a.nlm.search_radius == b.nlm.search_radius &&
      a.nlm.temporal_radius == b.nlm.temporal_radius && a.nlm.patch_radius == b.nlm.patch_radius &&
      a.sigma == b.sigma && a.nlm.strength == b.nlm.strength && a.nlm.chunk_size == b.nlm.chunk_size;
}

/* ---- latency ----------------------------------------------------------------- */

/* Frames a temporal stream with these settings holds back (the library's own
 * formula, as StreamDenoiser::latency_frames() gives it once built). */
static gint
settings_latency_frames (const cdn::DenoiseSettings & s)
{
  return cdn::StreamDenoiser::latency_frames_for (s);
}

/* Our latency: the larger of the stream in use and the one the settings ask for
 * (those apply at the next stream start), in frames times the frame duration.
 * With a variable framerate (0/1) the longest buffer duration seen stands in;
 * before any is known we cannot put a time on it and report none (and post a
 * latency message once a duration arrives). Called with the lock held. */
static GstClockTime
latency_locked (GstCudaDenoise * self, gint * frames_out = nullptr)
{
  const gint frames = std::max (settings_latency_frames (self->settings->effective), self->active_latency_frames);
  if (frames_out)
    *frames_out = frames;
  if (frames == 0)
    return 0;
  if (self->fps_n > 0 && self->fps_d > 0)
    return gst_util_uint64_scale ((guint64) frames, GST_SECOND * (guint64) self->fps_d, (guint64) self->fps_n);
  if (GST_CLOCK_TIME_IS_VALID (self->max_duration))
    return (GstClockTime) frames * self->max_duration;
  return 0;
}

/* Posts a latency message when our latency differs from what we last answered
 * (never before the first answer: the first query gets the right value). */
static void
maybe_post_latency (GstCudaDenoise * self)
{
  g_mutex_lock (&self->lock);
  gint frames = 0;
  const GstClockTime now = latency_locked (self, &frames);
  const gboolean changed = GST_CLOCK_TIME_IS_VALID (self->reported_latency) && now != self->reported_latency;
  const GstClockTime before = self->reported_latency;
  if (changed)
    self->reported_latency = now; /* until the pipeline asks again */
  g_mutex_unlock (&self->lock);
  if (changed) {
    GST_INFO_OBJECT (self, "latency %" GST_TIME_FORMAT " -> %" GST_TIME_FORMAT " (%d frames): posting a latency message",
        GST_TIME_ARGS (before), GST_TIME_ARGS (now), frames);
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_latency (GST_OBJECT (self)));
  }
}

static void
set_active_latency (GstCudaDenoise * self, gint frames)
{
  g_mutex_lock (&self->lock);
  const gboolean changed = self->active_latency_frames != frames;
  self->active_latency_frames = frames;
  g_mutex_unlock (&self->lock);
  if (changed)
    maybe_post_latency (self);
}

/* ---- properties -------------------------------------------------------------- */

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
  /* mode, temporal-radius, patch-radius and chunk-size change the latency. */
  maybe_post_latency (self);
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

/* Drops the temporal stream (device memory freed in its context). */
static void
drop_stream (GstCudaDenoise * self)
{
  State *state = self->state;
  if (state->stream) {
    GstCdnContextGuard push (GST_CDN_BASE_TRANSFORM (self));
    state->stream.reset ();
  }
  state->pending.clear ();
  state->at_stream_start = true;
  state->loop_interrupted = false;
}

static void
gst_cuda_denoise_reset_state (GstCdnBaseTransform * base)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (base);
  const bool had_stream = self->state->stream != nullptr;
  drop_stream (self);
  if (self->state->denoiser) {
    /* A CUDA denoiser frees its device memory and stream in its context. */
    GstCdnContextGuard push (base);
    self->state->denoiser.reset ();
  }
  *self->state = State ();
  if (had_stream)
    set_active_latency (self, 0);
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
  self->fps_n = 0;
  self->fps_d = 1;
  self->max_duration = GST_CLOCK_TIME_NONE;
  self->reported_latency = GST_CLOCK_TIME_NONE;
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

static gboolean
gst_cuda_denoise_stop (GstBaseTransform * trans)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  g_mutex_lock (&self->lock);
  self->reported_latency = GST_CLOCK_TIME_NONE; /* no latency messages while stopping */
  g_mutex_unlock (&self->lock);
  gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans); /* drops the State */
  if (self->qos_overridden)
    gst_base_transform_set_qos_enabled (trans, TRUE);
  self->qos_overridden = FALSE;
  return ret;
}

static gboolean
gst_cuda_denoise_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (trans);

  /* Interlaced frames hold two instants, a field each, line by line: filtered
   * as one picture, they would be mixed. Refuse them, saying what to do. */
  GstVideoInfo info;
  if (gst_video_info_from_caps (&info, incaps) && GST_VIDEO_INFO_IS_INTERLACED (&info)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("cudadenoise filters progressive video only, and the input is interlaced (interlace-mode=%s): "
         "deinterlace it first (e.g. deinterlace or videoconvert ! deinterlace before cudadenoise)",
         gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE (&info))),
        ("caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }

  /* The base drains the window (old caps, old pool), then drops the State. */
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->set_caps (trans, incaps, outcaps))
    return FALSE;
  g_mutex_lock (&self->lock);
  if (self->fps_n != GST_VIDEO_INFO_FPS_N (&base->in_info) || self->fps_d != GST_VIDEO_INFO_FPS_D (&base->in_info))
    self->max_duration = GST_CLOCK_TIME_NONE;
  self->fps_n = GST_VIDEO_INFO_FPS_N (&base->in_info);
  self->fps_d = GST_VIDEO_INFO_FPS_D (&base->in_info);
  g_mutex_unlock (&self->lock);
  maybe_post_latency (self);
  return TRUE;
}

/* Creates the per-frame denoiser or hands it new settings. Streaming thread,
 * CUDA context pushed when the backend is CUDA. Throws cdn::Error. */
static void
ensure_denoiser (GstCudaDenoise * self)
{
  State *state = self->state;
  const cdn::DenoiseSettings settings = state->frame_settings;
  const guint64 generation = state->frame_generation;
  g_mutex_lock (&self->lock);
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
    state->denoiser->set_cancel_flag (self->cancel);
    state->generation = generation;
    GST_DEBUG_OBJECT (self, "created a %s denoiser", cdn::backend_name (state->denoiser->backend ()));
  } else if (state->generation != generation) {
    state->denoiser->set_settings (settings);
    state->generation = generation;
    GST_DEBUG_OBJECT (self, "settings changed: mode %s, planes %s, %s", cdn::mode_name (settings.mode),
        cdn::planes_name (settings.planes), pair_text (settings).c_str ());
  }
}

/* Buffers whose memory the CUDA backend may use through device pointers: CUDA
 * memory of our own context. Anything else is mapped for the CPU (the CUDA
 * backend then uploads and downloads itself). */
static bool
device_memory (GstCudaDenoise * self, GstBuffer * buffer)
{
#ifdef CDN_GST_CUDA
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (self);
  return self->backend == cdn::Backend::Cuda && gst_cdn_buffer_is_cuda (buffer) &&
      GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buffer, 0))->context == base->context;
#else
  (void) self;
  (void) buffer;
  return false;
#endif
}

static void
log_host_fallback (GstCudaDenoise * self, GstBuffer * buffer, bool device)
{
  if (gst_cdn_buffer_is_cuda (buffer) != device && !self->state->host_fallback_logged) {
    GST_INFO_OBJECT (self, "CUDA memory mapped for the CPU (%s backend or another context)",
        cdn::backend_name (self->backend));
    self->state->host_fallback_logged = true;
  }
}

/* Runs `f`, turning library exceptions into element errors. */
template <typename F>
static GstFlowReturn
guarded (GstCudaDenoise * self, const char *what, F && f)
{
  try {
    f ();
    return GST_FLOW_OK;
  } catch (const cdn::Cancelled &) {
    throw;                      /* not an error: the caller returns FLUSHING */
  } catch (const cdn::InvalidArgument & e) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s failed: %s", what, e.what ()), ("invalid frame or settings"));
  } catch (const cdn::Error & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("%s failed: %s", what, e.what ()),
        ("%s backend", cdn::backend_name (self->backend)));
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("%s failed: %s", what, e.what ()), (nullptr));
  }
  return GST_FLOW_ERROR;
}

/* ---- per-frame modes ----------------------------------------------------------- */

static GstFlowReturn
gst_cuda_denoise_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (trans);
  State *state = self->state;

  const bool in_device = device_memory (self, inbuf), out_device = device_memory (self, outbuf);
  log_host_fallback (self, inbuf, in_device);
  log_host_fallback (self, outbuf, out_device);

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

  GstFlowReturn ret;
  try {
    ret = guarded (self, "denoising", [&] {
      ensure_denoiser (self);
      state->denoiser->process (in.view (), out.view ());
    });
  } catch (const cdn::Cancelled &) {
    GST_DEBUG_OBJECT (self, "frame abandoned: flushing or stopping");
    return GST_FLOW_FLUSHING;
  }
  if (ret != GST_FLOW_OK)
    return ret;
  state->frames++;
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " %s -> %s", state->frames,
      in_device ? "device" : "host", out_device ? "device" : "host");
  return GST_FLOW_OK;
}

/* ---- temporal modes ---------------------------------------------------------- */

/* The next frame of the window into a buffer from our output pool, carrying the
 * metadata of its input; *outbuf stays NULL when the next frame is not ready.
 * Streaming thread, CUDA context pushed. */
static GstFlowReturn
pop_frame (GstCudaDenoise * self, GstBuffer ** outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (self);
  State *state = self->state;
  *outbuf = nullptr;
  if (state->pending.empty () || !state->stream->ready ())
    return GST_FLOW_OK;

  /* Our decide_allocation always sets a pool (a CUDA pool for CUDA caps). */
  GstBufferPool *pool = gst_base_transform_get_buffer_pool (trans);
  if (!pool) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("no output buffer pool"), (nullptr));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *out = nullptr;
  if (!gst_buffer_pool_is_active (pool) && !gst_buffer_pool_set_active (pool, TRUE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("could not activate the output buffer pool"), (nullptr));
    ret = GST_FLOW_ERROR;
  } else {
    ret = gst_buffer_pool_acquire_buffer (pool, &out, nullptr);
  }
  gst_object_unref (pool);
  if (ret != GST_FLOW_OK)
    return ret;

  const bool out_device = device_memory (self, out);
  log_host_fallback (self, out, out_device);
  bool popped = false;
  {
    GstCdnMappedFrame mapped;
    std::string error;
    if (!mapped.map (out, &base->out_info, GST_MAP_WRITE, out_device, &error)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("could not map a frame"), ("%s", error.c_str ()));
      gst_buffer_unref (out);
      return GST_FLOW_ERROR;
    }
    ret = guarded (self, "denoising", [&] { popped = state->stream->pop (mapped.view ()); });
  }
  if (ret != GST_FLOW_OK || !popped) {
    gst_buffer_unref (out); /* back to the pool */
    return ret;
  }

  BufferPtr meta = std::move (state->pending.front ());
  state->pending.pop_front ();
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (trans);
  if (klass->copy_metadata && !klass->copy_metadata (trans, meta.get (), out))
    GST_WARNING_OBJECT (self, "could not copy the metadata of frame %" G_GUINT64_FORMAT, state->stream_frames_out);
  state->stream_frames_out++;
  GST_LOG_OBJECT (self, "out %" G_GUINT64_FORMAT " pts %" GST_TIME_FORMAT " (%s), %d held",
      state->stream_frames_out, GST_TIME_ARGS (GST_BUFFER_PTS (out)), out_device ? "device" : "host",
      state->stream->held ());
  *outbuf = out;
  return GST_FLOW_OK;
}

/* Ends the stream in the window: every held frame goes downstream, in order, then
 * the window is empty and the next frame starts a new stream. Streaming thread. */
static GstFlowReturn
gst_cuda_denoise_drain (GstCdnBaseTransform * base)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (base);
  State *state = self->state;
  if (!state->stream || state->at_stream_start)
    return GST_FLOW_OK;

  GstCdnContextGuard push (base);
  GST_DEBUG_OBJECT (self, "draining %d frames", state->stream->held ());
  GstFlowReturn ret = guarded (self, "draining", [&] { state->stream->finish (); });
  while (ret == GST_FLOW_OK && !state->pending.empty ()) {
    GstBuffer *out = nullptr;
    ret = pop_frame (self, &out);
    if (ret != GST_FLOW_OK)
      break;
    if (!out) {
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("the temporal denoiser kept %d frames after the end of the stream",
              (int) state->pending.size ()), (nullptr));
      ret = GST_FLOW_ERROR;
      break;
    }
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  }
  if (ret != GST_FLOW_OK)
    GST_INFO_OBJECT (self, "drain stopped (%s): dropping %d frames", gst_flow_get_name (ret),
        (int) state->pending.size ());
  guarded (self, "resetting", [&] { state->stream->reset (); });
  GST_DEBUG_OBJECT (self, "stream ended: %" G_GUINT64_FORMAT " frames in, %" G_GUINT64_FORMAT " out",
      state->stream_frames_in, state->stream_frames_out);
  state->pending.clear ();
  state->at_stream_start = true;
  state->loop_interrupted = false;
  state->stream_frames_in = state->stream_frames_out = 0;
  return ret;
}

/* FLUSH_STOP: the window's frames are dropped; the stream (and its device
 * memory) stays for the next one. */
static void
gst_cuda_denoise_flush (GstCdnBaseTransform * base)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (base);
  State *state = self->state;
  if (!state->stream) {
    gst_cuda_denoise_reset_state (base);
    return;
  }
  GST_DEBUG_OBJECT (self, "flush: dropping %d held frames", (int) state->pending.size ());
  GstCdnContextGuard push (base);
  guarded (self, "resetting", [&] { state->stream->reset (); });
  state->pending.clear ();
  state->at_stream_start = true;
  state->loop_interrupted = false;
  state->stream_frames_in = state->stream_frames_out = 0;
}

/* BaseTransform QoS drops input buffers, which would break the window: off while
 * a temporal mode runs, back on (if it was) for the per-frame modes. */
static void
update_qos (GstCudaDenoise * self, bool temporal)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  if (temporal && gst_base_transform_is_qos_enabled (trans)) {
    GST_INFO_OBJECT (self, "QoS off while a temporal mode runs");
    gst_base_transform_set_qos_enabled (trans, FALSE);
    self->qos_overridden = TRUE;
  } else if (!temporal && self->qos_overridden) {
    gst_base_transform_set_qos_enabled (trans, TRUE);
    self->qos_overridden = FALSE;
  }
}

/* At a stream start: the temporal stream for the current settings (built, kept
 * or dropped for a per-frame mode). Streaming thread. */
static GstFlowReturn
choose_path (GstCudaDenoise * self)
{
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (self);
  State *state = self->state;
  g_mutex_lock (&self->lock);
  const cdn::DenoiseSettings settings = self->settings->effective;
  const guint64 generation = self->settings->generation;
  g_mutex_unlock (&self->lock);

  if (!cdn::is_temporal (settings.mode)) {
    if (state->stream) {
      GST_INFO_OBJECT (self, "mode %s from this frame on", cdn::mode_name (settings.mode));
      drop_stream (self);
      set_active_latency (self, 0);
    }
    state->frame_settings = settings;
    state->frame_generation = generation;
    return GST_FLOW_OK;
  }
  if (state->stream && same_stream_settings (state->stream->settings (), settings))
    return GST_FLOW_OK;

  drop_stream (self);
  GstCdnContextGuard push (base);
  if (!push.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("could not make the CUDA context current"), (nullptr));
    return GST_FLOW_ERROR;
  }
  if (state->denoiser)
    state->denoiser.reset (); /* the per-frame denoiser's memory is not needed now */
  const int width = GST_VIDEO_INFO_WIDTH (&base->in_info), height = GST_VIDEO_INFO_HEIGHT (&base->in_info);
  GstFlowReturn ret = guarded (self, "creating the temporal denoiser", [&] {
    state->stream = cdn::StreamDenoiser::create (self->backend, settings, base->format, width, height);
  });
  if (ret != GST_FLOW_OK)
    return ret;
  GST_INFO_OBJECT (self, "%s on the %s backend, %s %dx%d: latency %d frames, chunks of %d",
      cdn::mode_name (settings.mode), cdn::backend_name (state->stream->backend ()),
      cdn::format_name (base->format), width, height, state->stream->latency_frames (), settings.nlm.chunk_size);
  set_active_latency (self, state->stream->latency_frames ());
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cuda_denoise_submit_input_buffer (GstBaseTransform * trans, gboolean is_discont, GstBuffer * input)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (trans);
  State *state = self->state;

  g_mutex_lock (&self->lock);
  const bool temporal_wanted = cdn::is_temporal (self->settings->effective.mode);
  g_mutex_unlock (&self->lock);
  update_qos (self, state->stream || temporal_wanted);

  /* Renegotiation and the negotiated check; the buffer lands in queued_buf. A
   * renegotiation drains the window first (set_caps). */
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans, is_discont, input);
  if (ret != GST_FLOW_OK || !trans->queued_buf)
    return ret;
  GstBuffer *inbuf = trans->queued_buf;

  /* A discontinuity ends the stream: the old frames go out first. */
  if (state->stream && !state->at_stream_start && GST_BUFFER_IS_DISCONT (inbuf)) {
    GST_DEBUG_OBJECT (self, "DISCONT buffer: draining the window");
    ret = gst_cuda_denoise_drain (base);
    if (ret != GST_FLOW_OK) {
      gst_buffer_replace (&trans->queued_buf, nullptr);
      return ret;
    }
  }
  if (!state->stream || state->at_stream_start) {
    ret = choose_path (self);
    if (ret != GST_FLOW_OK) {
      gst_buffer_replace (&trans->queued_buf, nullptr);
      return ret;
    }
  }
  if (!state->stream) {
    update_qos (self, false);
    return GST_FLOW_OK; /* per-frame: the default generate_output calls transform() */
  }

  trans->queued_buf = nullptr;
  BufferPtr in_owner (inbuf);
  const bool in_device = device_memory (self, inbuf);
  log_host_fallback (self, inbuf, in_device);

  GstCdnContextGuard push (base);
  if (!push.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("could not make the CUDA context current"), (nullptr));
    return GST_FLOW_ERROR;
  }
  if (state->loop_interrupted) {
    /* Downstream refused the last frame (not linked, say) and the base stopped
     * asking for more: send the frames that became ready since, so that the
     * window never holds more than the StreamDenoiser allows. */
    state->loop_interrupted = false;
    for (;;) {
      GstBuffer *out = nullptr;
      ret = pop_frame (self, &out);
      if (ret != GST_FLOW_OK)
        return ret;
      if (!out)
        break;
      GstFlowReturn pushed = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
      if (pushed != GST_FLOW_OK)
        GST_DEBUG_OBJECT (self, "catching up: downstream returned %s", gst_flow_get_name (pushed));
    }
  }
  {
    GstCdnMappedFrame in;
    std::string error;
    if (!in.map (inbuf, &base->in_info, GST_MAP_READ, in_device, &error)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("could not map a frame"), ("%s", error.c_str ()));
      return GST_FLOW_ERROR;
    }
    /* The stream copies the frame: the input buffer goes back to upstream's pool now. */
    ret = guarded (self, "denoising", [&] { state->stream->push (in.view ()); });
    if (ret != GST_FLOW_OK)
      return ret;
  }

  /* What the output of this frame will carry: timestamps, offsets, flags and metas. */
  BufferPtr meta (gst_buffer_new ());
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (trans);
  if (klass->copy_metadata && !klass->copy_metadata (trans, inbuf, meta.get ()))
    GST_WARNING_OBJECT (self, "could not copy the metadata of an input buffer");
  state->pending.push_back (std::move (meta));
  state->at_stream_start = false;
  state->stream_frames_in++;

  if (GST_BUFFER_DURATION_IS_VALID (inbuf)) {
    g_mutex_lock (&self->lock);
    const gboolean longer = self->fps_n == 0 &&
        (!GST_CLOCK_TIME_IS_VALID (self->max_duration) || GST_BUFFER_DURATION (inbuf) > self->max_duration);
    if (longer)
      self->max_duration = GST_BUFFER_DURATION (inbuf);
    g_mutex_unlock (&self->lock);
    if (longer)
      maybe_post_latency (self);
  }
  GST_LOG_OBJECT (self, "in %" G_GUINT64_FORMAT " pts %" GST_TIME_FORMAT " (%s), %d held",
      state->stream_frames_in, GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)), in_device ? "device" : "host",
      state->stream->held ());
  return GST_FLOW_OK;
}

/* Called until it gives no buffer after each submit: every ready frame goes out
 * (the StreamDenoiser wants pop() until false after every push()). */
static GstFlowReturn
gst_cuda_denoise_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  if (!self->state->stream)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans, outbuf);
  *outbuf = nullptr;
  if (self->state->pending.empty ())
    return GST_FLOW_OK;
  GstCdnContextGuard push (GST_CDN_BASE_TRANSFORM (trans));
  if (!push.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("could not make the CUDA context current"), (nullptr));
    return GST_FLOW_ERROR;
  }
  GstFlowReturn ret = pop_frame (self, outbuf);
  self->state->loop_interrupted = *outbuf != nullptr;
  return ret;
}

static gboolean
gst_cuda_denoise_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      /* Out of band: the streaming thread may be inside a slow frame. */
      self->cancel->store (true);
      break;
    case GST_EVENT_FLUSH_STOP:
      self->cancel->store (false);
      break;
    case GST_EVENT_EOS:
    case GST_EVENT_SEGMENT:
    case GST_EVENT_STREAM_START:
      /* The old stream's frames go out before the event (changed caps: set_caps). */
      if (self->state->stream && !self->state->at_stream_start) {
        GST_DEBUG_OBJECT (self, "%s: draining the window", GST_EVENT_TYPE_NAME (event));
        gst_cuda_denoise_drain (GST_CDN_BASE_TRANSFORM (trans));
      }
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_cuda_denoise_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY && direction == GST_PAD_SRC) {
    if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
      return FALSE;
    gboolean live = FALSE;
    GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
    gst_query_parse_latency (query, &live, &min, &max);
    g_mutex_lock (&self->lock);
    gint frames = 0;
    const GstClockTime ours = latency_locked (self, &frames);
    self->reported_latency = ours;
    g_mutex_unlock (&self->lock);
    if (frames > 0 && ours == 0)
      GST_INFO_OBJECT (self, "holding %d frames, but neither a framerate nor buffer durations give them a time: "
          "reporting no latency of our own", frames);
    GST_DEBUG_OBJECT (self, "latency: upstream %" GST_TIME_FORMAT ", ours %" GST_TIME_FORMAT " (%d frames)",
        GST_TIME_ARGS (min), GST_TIME_ARGS (ours), frames);
    min += ours;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += ours;
    gst_query_set_latency (query, live, min, max);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query);
}

/* ---- class ------------------------------------------------------------------- */

/* Stopping must not wait for a slow frame (bm3d): the frame in progress is
 * abandoned before the pads are deactivated. */
static GstStateChangeReturn
gst_cuda_denoise_change_state (GstElement * element, GstStateChange transition)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (element);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    self->cancel->store (false);
  else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    self->cancel->store (true);
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static void
gst_cuda_denoise_finalize (GObject * object)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (object);
  delete self->state;
  delete self->settings;
  delete self->cancel;
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
      g_param_spec_enum ("mode", "Mode", "Denoising algorithm; into or out of a temporal mode (nlm3d) while playing "
          "it applies at the next stream start, between per-frame modes from the next frame",
          GST_TYPE_CUDA_DENOISE_MODE, (gint) DEFAULT_MODE, live));
  g_object_class_install_property (gobject_class, PROP_PLANES,
      g_param_spec_enum ("planes", "Planes", "Colour components to filter", GST_TYPE_CUDA_DENOISE_PLANES,
          (gint) DEFAULT_PLANES, live));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend", "Where frames are filtered", GST_TYPE_CUDA_DENOISE_BACKEND,
          (gint) DEFAULT_BACKEND,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | GST_PARAM_DOC_SHOW_DEFAULT |
              G_PARAM_STATIC_STRINGS)));

  /* The numeric parameters come from the library's table, like the tools' flags:
   * every mode's, each saying which modes it applies to. */
  const auto & specs = cdn::param_specs ();
  for (size_t i = 0; i < specs.size (); i++) {
    const cdn::ParamSpec & p = specs[i];
    const gchar *blurb = param_blurb (p);
    GParamSpec *pspec = p.integer
        ? g_param_spec_int (p.name, p.name, blurb, (gint) p.min, (gint) p.max, (gint) p.def, live)
        : g_param_spec_double (p.name, p.name, blurb, p.min, p.max, p.def, live);
    g_object_class_install_property (gobject_class, PROP_PARAM_FIRST + (guint) i, pspec);
  }

  gst_element_class_set_static_metadata (element_class, "CUDA video denoiser", "Filter/Effect/Video",
      "Denoises video frame by frame with PI-PD or hybrid PI-PD (isoline filters, real time) or BM3D "
      "(offline, the best quality), or over a temporal window with 3D non-local means (NLM-3D), on "
      "CUDA memory without copies or on system memory, on the GPU or the CPU",
      "cudadenoise developers");
  gst_cdn_base_transform_add_pad_templates (element_class);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_denoise_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_denoise_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_denoise_set_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_denoise_transform);
  trans_class->submit_input_buffer = GST_DEBUG_FUNCPTR (gst_cuda_denoise_submit_input_buffer);
  trans_class->generate_output = GST_DEBUG_FUNCPTR (gst_cuda_denoise_generate_output);
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_cuda_denoise_change_state);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_denoise_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_denoise_query);
  cdn_class->want_cuda = GST_DEBUG_FUNCPTR (gst_cuda_denoise_want_cuda);
  cdn_class->reset_state = GST_DEBUG_FUNCPTR (gst_cuda_denoise_reset_state);
  cdn_class->drain = GST_DEBUG_FUNCPTR (gst_cuda_denoise_drain);
  cdn_class->flush = GST_DEBUG_FUNCPTR (gst_cuda_denoise_flush);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_DENOISE_MODE, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_DENOISE_PLANES, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_DENOISE_BACKEND, (GstPluginAPIFlags) 0);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_denoise_debug, "cudadenoise", 0, "PI-PD and NLM-3D video denoiser");
}

static void
gst_cuda_denoise_init (GstCudaDenoise * self)
{
  g_mutex_init (&self->lock);
  self->settings = new Settings ();
  self->state = new State ();
  self->backend = cdn::Backend::Cpu;
  self->active_latency_frames = 0;
  self->fps_n = 0;
  self->fps_d = 1;
  self->max_duration = GST_CLOCK_TIME_NONE;
  self->reported_latency = GST_CLOCK_TIME_NONE;
  self->qos_overridden = FALSE;
  self->cancel = new std::atomic<bool> (false);
}
