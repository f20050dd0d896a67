/* cudaaddnoise: additive white Gaussian noise, for demos and for measuring the
 * denoiser inside a pipeline. The noise itself is kernels/include/cudadenoise/noise.h. */

/**
 * SECTION:element-cudaaddnoise
 * @title: cudaaddnoise
 * @short_description: adds reproducible Gaussian noise to video
 *
 * Adds white Gaussian noise of standard deviation `sigma` (in 8-bit code values,
 * scaled to the bit depth of deeper formats) to every sample of every component,
 * clamped to the valid range. The noise of frame n (counted from the start of
 * the stream, or from the last flush or caps change) is generated from
 * `seed` + n, so a run is reproducible and consecutive frames get different
 * noise.
 *
 * It accepts the same formats and memory kinds as cudadenoise. The noise is made
 * on the CPU: CUDA memory is downloaded and uploaded again (this is a test and
 * demo element, not a zero-copy one).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! cudaaddnoise sigma=25 seed=7 ! tee name=t \
 *     t. ! queue ! videoconvert ! autovideosink \
 *     t. ! queue ! cudadenoise ! videoconvert ! autovideosink
 * ]| Shows a noisy test picture and its denoised version.
 *
 * Since: 0.1
 */

#include "gstcudaaddnoise.h"

#include <exception>
#include <new>
#include <string>

#include "cudadenoise/error.h"
#include "cudadenoise/noise.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_add_noise_debug);
#define GST_CAT_DEFAULT gst_cuda_add_noise_debug

enum
{
  PROP_0,
  PROP_SIGMA,
  PROP_SEED,
};

#define DEFAULT_SIGMA 20.0
#define DEFAULT_SEED 0

/* Guarded by GstCudaAddNoise::lock. */
struct AddNoiseSettings
{
  double sigma = DEFAULT_SIGMA;
  guint64 seed = DEFAULT_SEED;
};

/* Dropped by reset_state (caps, flush, context, stop). */
struct AddNoiseState
{
  guint64 frames = 0;
};

struct _GstCudaAddNoise
{
  GstCdnBaseTransform parent;

  GMutex lock;
  AddNoiseSettings settings;
  AddNoiseState state;
};

#define gst_cuda_add_noise_parent_class parent_class
G_DEFINE_TYPE (GstCudaAddNoise, gst_cuda_add_noise, GST_TYPE_CDN_BASE_TRANSFORM);

static void
gst_cuda_add_noise_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCudaAddNoise *self = GST_CUDA_ADD_NOISE (object);
  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_SIGMA:
      self->settings.sigma = g_value_get_double (value);
      break;
    case PROP_SEED:
      self->settings.seed = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_cuda_add_noise_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaAddNoise *self = GST_CUDA_ADD_NOISE (object);
  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_SIGMA:
      g_value_set_double (value, self->settings.sigma);
      break;
    case PROP_SEED:
      g_value_set_uint64 (value, self->settings.seed);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_cuda_add_noise_reset_state (GstCdnBaseTransform * base)
{
  GST_CUDA_ADD_NOISE (base)->state = AddNoiseState ();
}

static GstFlowReturn
gst_cuda_add_noise_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaAddNoise *self = GST_CUDA_ADD_NOISE (trans);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (trans);

  g_mutex_lock (&self->lock);
  const AddNoiseSettings settings = self->settings;
  g_mutex_unlock (&self->lock);

  /* CPU maps for both memory kinds: CUDA memory goes through its staging copy. */
  GstCdnMappedFrame in, out;
  std::string error;
  if (!in.map (inbuf, &base->in_info, GST_MAP_READ, false, &error) ||
      !out.map (outbuf, &base->out_info, GST_MAP_WRITE, false, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("could not map a frame"), ("%s", error.c_str ()));
    return GST_FLOW_ERROR;
  }
  if (!gst_video_frame_copy (out.frame (), in.frame ())) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("could not copy a frame"), (nullptr));
    return GST_FLOW_ERROR;
  }
  const guint64 seed = settings.seed + self->state.frames;
  try {
    cdn::add_gaussian_noise (out.view (), settings.sigma, seed);
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("adding noise failed: %s", e.what ()), (nullptr));
    return GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT ": sigma %g, seed %" G_GUINT64_FORMAT, self->state.frames,
      settings.sigma, seed);
  self->state.frames++;
  return GST_FLOW_OK;
}

static void
gst_cuda_add_noise_finalize (GObject * object)
{
  GstCudaAddNoise *self = GST_CUDA_ADD_NOISE (object);
  self->settings.~AddNoiseSettings ();
  self->state.~AddNoiseState ();
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_add_noise_class_init (GstCudaAddNoiseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCdnBaseTransformClass *cdn_class = GST_CDN_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags live = (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
      GST_PARAM_DOC_SHOW_DEFAULT | G_PARAM_STATIC_STRINGS);

  gobject_class->set_property = gst_cuda_add_noise_set_property;
  gobject_class->get_property = gst_cuda_add_noise_get_property;
  gobject_class->finalize = gst_cuda_add_noise_finalize;

  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation of the noise in 8-bit code values (scaled by 2^(depth-8) for deeper formats)",
          0.0, 255.0, DEFAULT_SIGMA, live));
  g_object_class_install_property (gobject_class, PROP_SEED,
      g_param_spec_uint64 ("seed", "Seed", "Seed of the noise; frame n uses seed + n", 0, G_MAXUINT64,
          DEFAULT_SEED, live));

  gst_element_class_set_static_metadata (element_class, "Gaussian noise generator", "Filter/Effect/Video",
      "Adds reproducible white Gaussian noise to video (system or CUDA memory), for demos and evaluation",
      "cudadenoise developers");
  gst_cdn_base_transform_add_pad_templates (element_class);

  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_add_noise_transform);
  cdn_class->reset_state = GST_DEBUG_FUNCPTR (gst_cuda_add_noise_reset_state);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_add_noise_debug, "cudaaddnoise", 0, "Gaussian noise generator");
}

static void
gst_cuda_add_noise_init (GstCudaAddNoise * self)
{
  g_mutex_init (&self->lock);
  new (&self->settings) AddNoiseSettings ();
  new (&self->state) AddNoiseState ();
}
