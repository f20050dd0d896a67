/* cudadenoise: the library's denoising modes (per frame and over a window of
 * frames) on the GPU or the CPU.
 *
 * A thin layer over kernels/: one cdn::StreamDenoiser per negotiated stream
 * (kernels/include/cudadenoise/stream_denoiser.h) decides what each frame needs. Per-frame modes go
 * through GstBaseTransform::transform, each frame filtered straight into its
 * output buffer; a window goes through submit_input_buffer, and its frames leave
 * by the window's one output path, also when it catches up or drains
 * (gstcudadenoisewindow.h). This file keeps GStreamer's rules: properties
 * (gstcudadenoiseproperties.h), events, latency in time, QoS on or off as the
 * library says, flush and cancellation.
 */

/**
 * SECTION:element-cudadenoise
 * @title: cudadenoise
 * @short_description: video denoiser on CUDA or the CPU, every mode of the cudadenoise library
 *
 * By default it runs the `standard` preset (docs/PRESETS.md): BM3D's rapid
 * profile on every frame, with the noise sigma measured on the frames and
 * tracked over time (the read-only `estimated-sigma` property, and an element
 * message `cudadenoise-noise` when it first becomes known and whenever it moves
 * by more than 5 %). With noise-model=signal or curve the frames are filtered
 * behind a variance-stabilising transform of a noise model per plane: noise-a
 * and noise-b, or a noise profile file (`noise-profile`, measured once with
 * cudadenoise-image --save-noise-profile); the message then carries the model
 * (docs/NOISE.md). `preset` picks another job's settings; any property set
 * explicitly overrides the preset, in any order; `strength` scales the sigma.
 * For a live source (its LATENCY answer) `window=auto` gives a temporal mode
 * its causal window where the mode has one, and the latency reported counts it.
 *
 * The modes, their descriptions and which properties apply to each are the
 * library's (gst-inspect-1.0 cudadenoise lists them; docs/ELEMENT.md).
 *
 * Per-frame modes denoise every frame on its own, with no latency: pipd and
 * hybrid (PI-PD, poly-isoline pixel denoising, and its hybrid with an edge
 * detector, at the paper's parameters; docs/PIPD.md) and bm3d (BM3D's two
 * phases: block matching, collaborative hard thresholding, then Wiener
 * filtering; docs/BM3D.md), the default.
 *
 * Temporal modes filter each frame with its neighbours: nlm3d (3D non-local
 * means; docs/NLM3D.md) and vbm3d (Video BM3D along the motion; docs/VBM3D.md).
 * They hold a window of frames: the element reports the latency the library
 * gives for it (StreamDenoiser::latency_frames: the frames a chunk holds and
 * those it reads after the frame), drains the window on EOS, caps changes,
 * segments, stream starts and discontinuities, drops it on flush, and sends
 * every frame out once, in order, with its timestamps and flags. With
 * window=causal (or auto on a live source) a mode that has a causal window
 * reads only the frame and those before it, and each frame leaves at once
 * (latency 0): for live sources.
 *
 * With CUDA memory on both pads (for example after nvh264dec) frames stay on the
 * GPU: the element shares the decoder's CUDA context and reads and writes its
 * memory without a host copy. System memory works too: the CUDA backend uploads
 * and downloads itself, and without a GPU (or with backend=cpu) the CPU backend
 * filters the same frames to the same values. A GPU that is present but cannot
 * be used (a cuda-device-id no device has, a device out of memory) makes
 * backend=auto filter on the CPU and post a warning message that says why;
 * backend=cuda fails to start.
 *
 * Interlaced video (interlace-mode interleaved or mixed) is never filtered as
 * if progressive: what a mode does with it is the library's
 * (cudadenoise/interlace.h): the per-frame modes filter each field on its own,
 * the temporal modes refuse it with an error that says to deinterlace first.
 *
 * Per-frame parameters may change while playing; they apply from the next
 * frame. While a temporal mode runs, changes of the mode, of planes and of the
 * mode's parameters apply at the next stream start (the window is drained with the old
 * settings first). Video metas that do not depend on the pixels (crop, regions
 * of interest, orientation, colorimetry) stay on the buffers.
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
 * ]| The same with the quality settings of docs/PIPD.md (the `isoline` preset):
 * slower and better on its photos (docs/PIPD.md has the figures).
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudadenoise mode=nlm3d sigma=15 ! cudadownload ! videoconvert ! autovideosink
 * ]| A temporal mode, nlm3d: its window's frames of latency (window=causal, or
 * auto on a live source: only past frames, no added latency).
 * |[
 * gst-launch-1.0 -m videotestsrc is-live=true pattern=ball ! cudaaddnoise sigma=15 ! \
 *     cudadenoise strength=1.2 ! videoconvert ! autovideosink
 * ]| The default preset, a little stronger than the measured noise; -m shows the
 * cudadenoise-noise messages.
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
#include <memory>
#include <string>
#include <vector>

#include "cudadenoise/backend.h"
#include "cudadenoise/error.h"
#include "cudadenoise/interlace.h"
#include "cudadenoise/noise_profile.h"
#include "cudadenoise/stream_denoiser.h"
#include "gstcudadenoiseproperties.h"
#include "gstcudadenoisewindow.h"

GST_DEBUG_CATEGORY (gst_cuda_denoise_debug);
#define GST_CAT_DEFAULT gst_cuda_denoise_debug

#define DEFAULT_BACKEND cdn::Backend::Auto

/* What the properties say; guarded by GstCudaDenoise::lock. */
struct Settings
{
  cdn::SettingsChoice choice;        /* the preset and what was set explicitly, valid or not */
  /* The last valid resolution of `choice` (cdn::validate): what the stream runs. */
  cdn::DenoiseSettings settings = choice.resolve ();
  /* Why `choice` does not validate as a whole (empty: settings == choice resolved).
   * Properties are checked together, not one by one, so they may be set in any
   * order; a conflict still standing when the stream starts is an error. */
  std::string conflict;
  cdn::Backend backend = DEFAULT_BACKEND;
  guint64 generation = 0;            /* bumped whenever `settings` changes */
  /* The noise-profile property: the file as given ("" none), the profile last
   * read from a good file (part of `settings`, not of the parameter table), and
   * why the file given last could not be read ("" when it was; `profile` is
   * then the previous one, and a stream cannot start). */
  std::string profile_path;
  std::shared_ptr<const cdn::NoiseProfile> profile;
  std::string profile_error;
  /* cuda-devices: as given, and its devices (a temporal mode's lanes; read when
   * a stream is made). */
  std::string devices_text;
  std::vector<int> devices;
};

/* What the stream built; dropped by reset_state (caps, context, stop). Used on
 * the streaming thread only (and by stop, after streaming has stopped). */
struct State
{
  explicit State (std::atomic<GstClockTime> * out_end) : window (out_end) {}
  /* Made when the caps come (set_caps), or at the next buffer after a reset. */
  std::unique_ptr<cdn::StreamDenoiser> stream;
  guint64 generation = G_MAXUINT64;  /* settings generation the stream has */
  bool fields = false;               /* interlaced: each field filtered on its own (the stream's frames are fields) */
  GstCudaDenoiseWindow window;       /* frames held by a temporal mode and their metadata */
  guint64 frames = 0;
  bool host_fallback_logged = false;
  std::string warned_conflict;       /* the property conflict last posted as a warning */
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
  gint active_latency_frames;     /* the stream's latency_frames(); 0 without one */
  gint fps_n, fps_d;              /* the negotiated framerate (0/1: variable) */
  GstClockTime max_duration;      /* the longest input buffer duration seen, for fps 0/1 */
  GstClockTime reported_latency;  /* our share of the last LATENCY answer; NONE before the first */

  /* Under `lock`: whether upstream is live (the LATENCY query at the stream's
   * start; window=auto then picks a causal window), and the stream's noise sigma
   * per component (the estimated-sigma property). */
  gboolean live;
  gboolean live_known;           /* a LATENCY answer (ours or our own query) said it */
  std::vector<double> *estimated_sigma;

  /* Streaming thread: BaseTransform QoS was on and we turned it off for a window. */
  gboolean qos_overridden;

  /* Set by FLUSH_START and PAUSED->READY (other threads) to abandon a slow frame
   * in progress (bm3d), cleared by FLUSH_STOP and READY->PAUSED. */
  std::atomic<bool> *cancel;

  /* The end of the last frame a window sent out (the window writes it, the
   * POSITION query reads it from any thread); NONE while the last frame out was
   * GstBaseTransform's (a per-frame mode's), after a flush and at start. */
  std::atomic<GstClockTime> *window_out_end;
};

#define gst_cuda_denoise_parent_class parent_class
G_DEFINE_TYPE (GstCudaDenoise, gst_cuda_denoise, GST_TYPE_CDN_BASE_TRANSFORM);

static bool
cuda_backend (GstCudaDenoise * self)
{
  return self->backend == cdn::Backend::Cuda;
}

static const char *
backend_text (GstCudaDenoise * self)
{
  return cdn::backend_name (self->backend);
}

/* ---- latency ----------------------------------------------------------------- */

/* Our latency: the larger of the stream's (which counts settings waiting for its
 * next start) and the properties' (not handed to the stream yet), in frames times
 * the frame duration. With a variable framerate (0/1) the longest buffer duration
 * seen stands in; before any is known we cannot put a time on it and report none
 * (and post a latency message once a duration arrives). Called with the lock held. */
static GstClockTime
latency_locked (GstCudaDenoise * self, gint * frames_out = nullptr)
{
  /* cuda-devices' lanes count on the CUDA backend only (chosen at start). */
  const gint lanes = self->backend == cdn::Backend::Cuda ? (gint) self->settings->devices.size () : 0;
  const gint frames = std::max (cdn::StreamDenoiser::latency_frames_for (self->settings->settings, lanes, self->live),
      self->active_latency_frames);
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

/* The stream's latency while it holds a stream's frames; once idle the next
 * stream follows the properties, which latency_locked counts anyway. */
static void
set_active_latency (GstCudaDenoise * self, gint frames);

static void
update_active_latency (GstCudaDenoise * self)
{
  const cdn::StreamDenoiser *stream = self->state->stream.get ();
  set_active_latency (self, stream && !stream->idle ()? stream->latency_frames () : 0);
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

/* The longest buffer duration stands in for a variable framerate's frame time. */
static void
note_duration (GstCudaDenoise * self, GstBuffer * buffer)
{
  if (!GST_BUFFER_DURATION_IS_VALID (buffer))
    return;
  g_mutex_lock (&self->lock);
  const gboolean longer = self->fps_n == 0 &&
      (!GST_CLOCK_TIME_IS_VALID (self->max_duration) || GST_BUFFER_DURATION (buffer) > self->max_duration);
  if (longer)
    self->max_duration = GST_BUFFER_DURATION (buffer);
  g_mutex_unlock (&self->lock);
  if (longer)
    maybe_post_latency (self);
}

/* ---- properties -------------------------------------------------------------- */

/* The properties' settings: the choice resolved, with the noise profile. */
static cdn::DenoiseSettings
resolved_locked (const Settings * st, const cdn::SettingsChoice & choice)
{
  cdn::DenoiseSettings s = choice.resolve ();
  s.noise_profile = st->profile;
  return s;
}

/* The properties judged together (cdn::settings_problems): valid, they become
 * the settings the stream runs; else the conflict is kept and the last valid
 * settings stay. `changed` names the property set. Called with the lock held. */
static void
revalidate_locked (GstCudaDenoise * self, const char *changed)
{
  Settings *st = self->settings;
  const cdn::DenoiseSettings resolved = resolved_locked (st, st->choice);
  const std::vector<std::string> problems = cdn::settings_problems (resolved);
  if (problems.empty ()) {
    st->settings = resolved;
    st->conflict.clear ();
    st->generation++;
  } else {
    st->conflict.clear ();
    for (const std::string & p : problems)
      st->conflict += (st->conflict.empty ()? "" : "; ") + p;
    GST_INFO_OBJECT (self, "after %s the properties conflict (%s); the last valid settings stay until they agree",
        changed, st->conflict.c_str ());
  }
}

/* noise-profile: the file is read now (cudadenoise/noise_profile.h). One that
 * cannot be read leaves the previous profile in the settings; the reason is
 * posted as a warning (a running stream keeps its settings) and stops the next
 * start (gst_cuda_denoise_start). */
static void
set_noise_profile (GstCudaDenoise * self, const gchar * path)
{
  const std::string file = path ? path : "";
  std::shared_ptr<const cdn::NoiseProfile> profile;
  std::string error;
  if (!file.empty ()) {
    try {
      profile = std::make_shared<const cdn::NoiseProfile> (cdn::load_noise_profile (file));
    } catch (const cdn::Error & e) {
      error = e.what ();
    }
  }
  g_mutex_lock (&self->lock);
  Settings *st = self->settings;
  st->profile_path = file;
  st->profile_error = error;
  if (error.empty ()) {
    st->profile = profile;
    revalidate_locked (self, "noise-profile");
  }
  g_mutex_unlock (&self->lock);
  if (!error.empty ()) {
    GST_WARNING_OBJECT (self, "noise-profile: %s", error.c_str ());
    GST_ELEMENT_WARNING (self, RESOURCE, READ, ("%s; the previous noise settings stay", error.c_str ()), (nullptr));
  }
}

static void
gst_cuda_denoise_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (object);
  if (prop_id == GST_CUDA_DENOISE_PROP_NOISE_PROFILE) {
    set_noise_profile (self, g_value_get_string (value));
    maybe_post_latency (self);
    return;
  }
  g_mutex_lock (&self->lock);
  Settings *st = self->settings;
  if (prop_id == GST_CUDA_DENOISE_PROP_BACKEND) {
    st->backend = (cdn::Backend) g_value_get_enum (value);
  } else if (prop_id == GST_CUDA_DENOISE_PROP_CUDA_DEVICES) {
    const char *text = g_value_get_string (value);
    std::string why;
    if (cdn::parse_cuda_device_list (text ? text : "", &st->devices, &why)) {
      st->devices_text = text ? text : "";
    } else {
      GST_WARNING_OBJECT (self, "rejected cuda-devices: %s", why.c_str ());
      g_warning ("%s: rejected cuda-devices: %s; keeping the previous value", GST_OBJECT_NAME (self), why.c_str ());
    }
  } else {
    /* The table's ranges are the GParamSpec's. What else the library refuses is
     * judged on the properties as a whole (patch-shape=cube is valid once the
     * 2D-only options are off, whatever order they come in): the value is kept,
     * the stream keeps the last valid settings meanwhile, and a conflict still
     * standing when a stream starts is an error (ensure_stream). */
    cdn::SettingsChoice candidate = st->choice;
    try {
      if (!gst_cuda_denoise_settings_from_value (&candidate, prop_id, value)) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      } else {
        st->choice = candidate;
        revalidate_locked (self, pspec->name);
      }
    } catch (const cdn::InvalidArgument & e) {
      GST_WARNING_OBJECT (self, "rejected %s: %s", pspec->name, e.what ());
      g_warning ("%s: rejected %s: %s; keeping the previous value", GST_OBJECT_NAME (self), pspec->name, e.what ());
    }
  }
  g_mutex_unlock (&self->lock);
  /* The mode and a temporal mode's window parameters change the latency. */
  maybe_post_latency (self);
}

static void
gst_cuda_denoise_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (object);
  g_mutex_lock (&self->lock);
  if (prop_id == GST_CUDA_DENOISE_PROP_BACKEND)
    g_value_set_enum (value, (gint) self->settings->backend);
  else if (prop_id == GST_CUDA_DENOISE_PROP_ESTIMATED_SIGMA)
    gst_cuda_denoise_sigma_to_value (*self->estimated_sigma, value);
  else if (prop_id == GST_CUDA_DENOISE_PROP_NOISE_PROFILE)
    g_value_set_string (value, self->settings->profile_path.c_str ());
  else if (prop_id == GST_CUDA_DENOISE_PROP_CUDA_DEVICES)
    g_value_set_string (value, self->settings->devices_text.c_str ());
  else if (!gst_cuda_denoise_settings_to_value (self->settings->choice, self->settings->choice.resolve (), prop_id,
          value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  g_mutex_unlock (&self->lock);
}

/* ---- state ------------------------------------------------------------------- */

static void
gst_cuda_denoise_reset_state (GstCdnBaseTransform * base)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (base);
  const bool had_stream = self->state->stream != nullptr;
  {
    /* A CUDA stream frees its device memory in its context. */
    GstCdnContextGuard push (base);
    delete self->state;
    self->state = new State (self->window_out_end);
  }
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
  const std::string conflict = self->settings->conflict;
  const std::string profile_error = self->settings->profile_error;
  self->fps_n = 0;
  self->fps_d = 1;
  self->max_duration = GST_CLOCK_TIME_NONE;
  self->reported_latency = GST_CLOCK_TIME_NONE;
  self->live_known = FALSE;
  self->estimated_sigma->clear ();
  g_mutex_unlock (&self->lock);
  self->window_out_end->store (GST_CLOCK_TIME_NONE);

  if (!profile_error.empty ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("noise-profile: %s", profile_error.c_str ()), (nullptr));
    return FALSE;
  }
  if (!conflict.empty ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("the properties conflict: %s", conflict.c_str ()), (nullptr));
    return FALSE;
  }
  std::string why;
  const gboolean cuda = gst_cdn_base_transform_cuda_enabled (base, &why);
  if (requested == cdn::Backend::Cuda && !cuda) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("backend=cuda but CUDA cannot be used"), ("%s", why.c_str ()));
    return FALSE;
  }
  self->backend = cuda ? cdn::Backend::Cuda : cdn::Backend::Cpu;
  if (requested == cdn::Backend::Auto && !cuda) {
    GST_INFO_OBJECT (self, "backend=auto: using the CPU backend (%s)", why.c_str ());
    gst_cdn_base_transform_warn_cpu_fallback (base);
  } else
    GST_INFO_OBJECT (self, "using the %s backend", backend_text (self));
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

static GstFlowReturn ensure_stream (GstCudaDenoise * self);

static gboolean
gst_cuda_denoise_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (trans);

  /* Interlaced input: what the mode does with it is the library's
   * (gstcdncaps.h); refused here, at negotiation, saying what to do. */
  GstVideoInfo info;
  cdn::PixelFormat format;
  if (gst_video_info_from_caps (&info, incaps) && gst_cdn_pixel_format (GST_VIDEO_INFO_FORMAT (&info), &format)) {
    g_mutex_lock (&self->lock);
    const cdn::Mode mode = self->settings->settings.mode;
    g_mutex_unlock (&self->lock);
    gboolean fields;
    const std::string refusal = gst_cdn_interlace_refusal (&info, format, mode, &fields);
    if (!refusal.empty ()) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", refusal.c_str ()), ("caps %" GST_PTR_FORMAT, incaps));
      return FALSE;
    }
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
  /* The stream is built now, as nvcodec's elements open their resources at
   * negotiation, not at the first frame: a live source negotiates before its
   * pipeline plays, and a stream that cannot start refuses the caps with its
   * error. Liveness (window=auto) is asked now and follows every LATENCY query.
   * Building it posts a latency message if the new framerate moved ours. */
  return ensure_stream (self) == GST_FLOW_OK;
}

/* Whether upstream is live (its LATENCY answer), for window=auto. */
static gboolean
upstream_is_live (GstCudaDenoise * self)
{
  GstQuery *q = gst_query_new_latency ();
  gboolean live = FALSE;
  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), q))
    gst_query_parse_latency (q, &live, nullptr, nullptr);
  gst_query_unref (q);
  return live;
}

/* The stream for the negotiated caps, made or handed the properties' settings
 * when they changed (the library decides whether they apply now or at its next
 * stream start). Streaming thread. */
static GstFlowReturn
ensure_stream (GstCudaDenoise * self)
{
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (self);
  State *state = self->state;
  g_mutex_lock (&self->lock);
  /* The common case, twice per buffer: nothing changed since the stream took
   * the properties (no copy of them). */
  if (state->stream && state->generation == self->settings->generation && self->settings->conflict.empty () &&
      self->live_known && state->stream->live_source () == (bool) self->live) {
    g_mutex_unlock (&self->lock);
    return GST_FLOW_OK;
  }
  const cdn::DenoiseSettings settings = self->settings->settings;
  const std::vector<int> devices = self->settings->devices;
  const guint64 generation = self->settings->generation;
  const std::string conflict = self->settings->conflict;
  const gboolean live_known = self->live_known;
  gboolean live = self->live;
  g_mutex_unlock (&self->lock);
  if (!live_known) {
    live = upstream_is_live (self);
    g_mutex_lock (&self->lock);
    self->live = live;
    self->live_known = TRUE;
    g_mutex_unlock (&self->lock);
  }
  /* Live or not decides window=auto: the library applies a change like new settings. */
  if (state->stream && state->stream->live_source () != (bool) live) {
    GstCdnContextGuard push (GST_CDN_BASE_TRANSFORM (self));
    GstFlowReturn r = gst_cdn_guarded (GST_CDN_BASE_TRANSFORM (self), "switching the window", backend_text (self),
        [&] { state->stream->set_live_source (live); });
    if (r != GST_FLOW_OK)
      return r;
  }
  if (!conflict.empty ()) {
    /* A stream starts on the properties as they are, or not at all; one that
     * runs keeps its settings until the properties agree again. */
    if (!state->stream) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("the properties conflict: %s", conflict.c_str ()), (nullptr));
      return GST_FLOW_ERROR;
    }
    if (state->warned_conflict != conflict) {
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("the properties conflict; the previous settings stay until they "
              "agree"), ("%s", conflict.c_str ()));
      state->warned_conflict = conflict;
    }
  }
  if (state->stream && state->generation == generation)
    return GST_FLOW_OK;

  GstCdnContextGuard push (base);
  if (!push.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("could not make the CUDA context current"), (nullptr));
    return GST_FLOW_ERROR;
  }
  /* Settings changed while playing (a temporal mode on interlaced input) are
   * judged like the caps were (set_caps). */
  gboolean fields;
  const std::string refusal = gst_cdn_interlace_refusal (&base->in_info, base->format, settings.mode, &fields);
  if (!refusal.empty ()) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", refusal.c_str ()), (nullptr));
    return GST_FLOW_ERROR;
  }
  const int width = GST_VIDEO_INFO_WIDTH (&base->in_info), height = GST_VIDEO_INFO_HEIGHT (&base->in_info);
  const bool first = !state->stream;
  if (first)
    state->fields = fields;
  GstFlowReturn ret = gst_cdn_guarded (base, "starting the denoiser", backend_text (self), [&] {
    if (!state->stream) {
      state->stream = cdn::StreamDenoiser::create (self->backend, settings, base->format, width,
          state->fields ? height / 2 : height, self->backend == cdn::Backend::Cuda ? devices : std::vector<int> ());
      state->stream->set_cancel_flag (self->cancel);
      state->stream->set_live_source (live);
    } else {
      state->stream->set_settings (settings);
    }
  });
  if (ret != GST_FLOW_OK)
    return ret;
  state->generation = generation;
  GST_INFO_OBJECT (self, "%s on the %s backend, %s %dx%d%s (%s, %s window, %s source), latency %d frames",
      cdn::mode_name (state->stream->settings ().mode), backend_text (self), cdn::format_name (base->format), width,
      height, state->fields ? " interlaced, field by field" : "", state->stream->per_frame ()? "per frame" : "a window",
      cdn::temporal_window_name (state->stream->window ()), live ? "live" : "non-live",
      state->stream->latency_frames ());
  if (first)
    maybe_post_latency (self);
  return GST_FLOW_OK;
}

/* After a frame went into the stream: the estimated-sigma property follows the
 * stream, and a cudadenoise-noise element message says when the noise the
 * frames are filtered with first becomes known and whenever it moves by more
 * than 5 % (the library decides: StreamDenoiser::noise_changed); with
 * noise-model signal or curve the message carries the model
 * (StreamDenoiser::noise_models). */
static void
note_noise (GstCudaDenoise * self, GstBuffer * buffer)
{
  cdn::StreamDenoiser *stream = self->state->stream.get ();
  if (!stream)
    return;
  std::vector<double> sigma = stream->noise_sigma ();
  const std::vector<cdn::NoiseModel> models = stream->noise_models ();
  const cdn::NoiseModelKind kind = models.empty ()? cdn::NoiseModelKind::Constant : stream->settings ().noise_model;
  const bool changed = stream->noise_changed ();
  g_mutex_lock (&self->lock);
  *self->estimated_sigma = sigma;
  g_mutex_unlock (&self->lock);
  if (!changed)
    return;
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  gst_cuda_denoise_sigma_to_value (sigma, &array);
  GstStructure *s = gst_structure_new ("cudadenoise-noise",
      "sigma-luma", G_TYPE_DOUBLE, sigma.empty ()? 0.0 : sigma[0],
      "timestamp", G_TYPE_UINT64, (guint64) GST_BUFFER_PTS (buffer),
      "frame", G_TYPE_UINT64, (guint64) self->state->frames, nullptr);
  gst_structure_take_value (s, "sigma", &array);
  gst_cuda_denoise_models_to_structure (kind, models, s);
  if (models.empty ())
    GST_INFO_OBJECT (self, "noise sigma (luma) now %.2f", sigma.empty ()? 0.0 : sigma[0]);
  else
    GST_INFO_OBJECT (self, "noise model %s (luma): a %.3f, b %.3f", cdn::noise_model_name (kind), models[0].a,
        models[0].b);
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
}

/* BaseTransform QoS drops input buffers: on when the library says frames may be
 * dropped (per-frame modes), off while a window runs or is to run. */
static void
update_qos (GstCudaDenoise * self, bool may_drop)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  if (!may_drop && gst_base_transform_is_qos_enabled (trans)) {
    GST_INFO_OBJECT (self, "QoS off while a temporal mode runs");
    gst_base_transform_set_qos_enabled (trans, FALSE);
    self->qos_overridden = TRUE;
  } else if (may_drop && self->qos_overridden) {
    gst_base_transform_set_qos_enabled (trans, TRUE);
    self->qos_overridden = FALSE;
  }
}

static bool
on_device (GstCudaDenoise * self, GstBuffer * buffer)
{
  const bool device = gst_cdn_base_transform_on_device (GST_CDN_BASE_TRANSFORM (self), buffer, cuda_backend (self));
  if (gst_cdn_buffer_is_cuda (buffer) != device && !self->state->host_fallback_logged) {
    GST_INFO_OBJECT (self, "CUDA memory mapped for the CPU (%s backend or another context)", backend_text (self));
    self->state->host_fallback_logged = true;
  }
  return device;
}

/* ---- per-frame modes ----------------------------------------------------------- */

static GstFlowReturn
gst_cuda_denoise_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (trans);
  State *state = self->state;
  if (!state->stream) {
    GST_ELEMENT_ERROR (self, CORE, FAILED, ("a frame to transform without a stream"), (nullptr));
    return GST_FLOW_ERROR;
  }
  const bool in_device = on_device (self, inbuf), out_device = on_device (self, outbuf);

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
    ret = gst_cdn_guarded (base, "denoising", backend_text (self), [&] {
      if (state->fields) {      /* the top field, then the bottom one: each a frame of the stream */
        for (int parity = 0; parity < 2; parity++)
          state->stream->process (cdn::field_view (in.view (), parity), cdn::field_view (out.view (), parity));
      } else {
        state->stream->process (in.view (), out.view ());
      }
    });
    if (ret == GST_FLOW_OK)
      note_noise (self, inbuf);
  } catch (const cdn::Cancelled &) {
    GST_DEBUG_OBJECT (self, "frame abandoned: flushing or stopping");
    return GST_FLOW_FLUSHING;
  }
  if (ret != GST_FLOW_OK)
    return ret;
  /* This frame leaves by GstBaseTransform's chain, which notes its position. */
  self->window_out_end->store (GST_CLOCK_TIME_NONE);
  state->frames++;
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " %s -> %s", state->frames,
      in_device ? "device" : "host", out_device ? "device" : "host");
  return GST_FLOW_OK;
}

/* ---- every frame ------------------------------------------------------------- */

static GstFlowReturn
gst_cuda_denoise_drain (GstCdnBaseTransform * base)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (base);
  State *state = self->state;
  if (!state->stream || state->stream->held () == 0)
    return GST_FLOW_OK;
  const GstFlowReturn ret = state->window.drain (base, *state->stream, cuda_backend (self));
  update_active_latency (self);
  return ret;
}

/* FLUSH_STOP: the window's frames are dropped; the stream (and its device
 * memory) stays for the next one. */
static void
gst_cuda_denoise_flush (GstCdnBaseTransform * base)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (base);
  State *state = self->state;
  if (state->stream)
    state->window.flush (base, *state->stream);
  self->window_out_end->store (GST_CLOCK_TIME_NONE); /* as GstBaseTransform forgets its own */
}

static GstFlowReturn
gst_cuda_denoise_submit_input_buffer (GstBaseTransform * trans, gboolean is_discont, GstBuffer * input)
{
  GstCudaDenoise *self = GST_CUDA_DENOISE (trans);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (trans);

  /* New settings go to the stream first: whether this frame may be dropped (QoS)
   * depends on them. */
  GstFlowReturn ret = GST_FLOW_OK;
  if (self->state->stream)
    ret = ensure_stream (self);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (input);
    return ret;
  }
  g_mutex_lock (&self->lock);
  const bool temporal_asked = cdn::is_temporal (self->settings->settings.mode);
  g_mutex_unlock (&self->lock);
  update_qos (self, self->state->stream ? self->state->stream->may_drop_frames () : !temporal_asked);

  /* Renegotiation, QoS and the negotiated check; the buffer lands in queued_buf.
   * A renegotiation drains the window first (set_caps). */
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans, is_discont, input);
  if (ret != GST_FLOW_OK || !trans->queued_buf)
    return ret;
  GstBuffer *inbuf = trans->queued_buf;
  /* CUDA memory of another context: adopted before we map it (drains the window). */
  gst_cdn_base_transform_adopt_context (base, inbuf);

  State *state = self->state;
  /* A discontinuity ends the stream: the old frames go out first. */
  if (GST_BUFFER_IS_DISCONT (inbuf) && state->stream && state->stream->held () > 0) {
    GST_DEBUG_OBJECT (self, "DISCONT buffer: draining the window");
    ret = gst_cuda_denoise_drain (base);
  }
  if (ret == GST_FLOW_OK)
    ret = ensure_stream (self);
  if (ret != GST_FLOW_OK) {
    gst_buffer_replace (&trans->queued_buf, nullptr);
    return ret;
  }
  update_qos (self, state->stream->may_drop_frames ());
  if (state->stream->per_frame ()) {
    update_active_latency (self);
    return GST_FLOW_OK; /* the default generate_output calls transform() */
  }

  /* A window: the frame goes in and every frame ready after it goes out here;
   * the default generate_output finds no queued buffer and gives none. */
  trans->queued_buf = nullptr;
  GstCdnBufferPtr owner (inbuf);
  note_duration (self, inbuf);
  on_device (self, inbuf);
  ret = state->window.push (base, *state->stream, inbuf, cuda_backend (self));
  note_noise (self, inbuf);
  update_active_latency (self);
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
      if (self->state->stream && self->state->stream->held () > 0) {
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
  if (GST_QUERY_TYPE (query) == GST_QUERY_POSITION && direction == GST_PAD_SRC) {
    /* Where the output is: GstBaseTransform answers from the frames its chain
     * pushed, which are not a window's. */
    const GstClockTime end = self->window_out_end->load ();
    GstFormat format;
    gst_query_parse_position (query, &format, nullptr);
    if (GST_CLOCK_TIME_IS_VALID (end) && format == GST_FORMAT_TIME && trans->segment.format == GST_FORMAT_TIME) {
      gst_query_set_position (query, format, gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME, end));
      return TRUE;
    }
  }
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY && direction == GST_PAD_SRC) {
    if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
      return FALSE;
    gboolean live = FALSE;
    GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
    gst_query_parse_latency (query, &live, &min, &max);
    g_mutex_lock (&self->lock);
    self->live = live;            /* window=auto follows it (ensure_stream) */
    self->live_known = TRUE;
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
  delete self->window_out_end;
  delete self->estimated_sigma;
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

  gobject_class->set_property = gst_cuda_denoise_set_property;
  gobject_class->get_property = gst_cuda_denoise_get_property;
  gobject_class->finalize = gst_cuda_denoise_finalize;
  gst_cuda_denoise_install_properties (gobject_class);

  /* The modes as the library lists them (a new mode appears without an edit here). */
  std::string per_frame, temporal;
  for (cdn::Mode m : cdn::all_modes ()) {
    std::string & list = cdn::is_temporal (m) ? temporal : per_frame;
    list += (list.empty ()? "" : ", ") + std::string (cdn::mode_name (m));
  }
  const std::string description = "Denoises video frame by frame (" + per_frame + ") or over a window of frames (" +
      temporal + "), on CUDA memory without copies or on system memory, on the GPU or the CPU";
  gst_element_class_set_metadata (element_class, "CUDA video denoiser", "Filter/Effect/Video", description.c_str (),
      "cudadenoise developers");
  gst_cdn_base_transform_add_pad_templates (element_class);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_denoise_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_denoise_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_denoise_set_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_denoise_transform);
  trans_class->submit_input_buffer = GST_DEBUG_FUNCPTR (gst_cuda_denoise_submit_input_buffer);
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

  GST_DEBUG_CATEGORY_INIT (gst_cuda_denoise_debug, "cudadenoise", 0, "cudadenoise video denoiser (every mode)");
}

static void
gst_cuda_denoise_init (GstCudaDenoise * self)
{
  g_mutex_init (&self->lock);
  self->settings = new Settings ();
  self->estimated_sigma = new std::vector<double> ();
  self->live = FALSE;
  self->live_known = FALSE;
  self->window_out_end = new std::atomic<GstClockTime> (GST_CLOCK_TIME_NONE);
  self->state = new State (self->window_out_end);
  self->backend = cdn::Backend::Cpu;
  self->active_latency_frames = 0;
  self->fps_n = 0;
  self->fps_d = 1;
  self->max_duration = GST_CLOCK_TIME_NONE;
  self->reported_latency = GST_CLOCK_TIME_NONE;
  self->qos_overridden = FALSE;
  self->cancel = new std::atomic<bool> (false);
}
