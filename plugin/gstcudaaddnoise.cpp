/* cudaaddnoise: additive white Gaussian noise, for demos and for measuring the
 * denoiser inside a pipeline. The noise itself is kernels/include/cudadenoise/counter_noise.h
 * (Philox4x32-10 + Box-Muller): the CUDA kernel on CUDA memory, where it is, and
 * the same function on the CPU for system memory. */

/**
 * SECTION:element-cudaaddnoise
 * @title: cudaaddnoise
 * @short_description: adds reproducible Gaussian noise to video, on the GPU or the CPU
 *
 * Adds white Gaussian noise of standard deviation `sigma` (in 8-bit code values,
 * scaled by 2^(depth-8) for deeper formats: sigma 20 is 80 on P010) to every
 * sample of every component, rounded and clamped to the valid range
 * (P010's padding bits stay zero). The noise of frame n (counted from the start
 * of the stream, or from the last flush or caps change) comes from `seed` + n,
 * so a run is reproducible and consecutive frames get different noise.
 *
 * The generator is counter-based (Philox4x32-10, Salmon et al., SC11, with the
 * Box-Muller transform): every sample's noise is a function of the seed, its
 * component and its position within the component, so it is computed in
 * parallel and is the same whatever the memory, pitch or layout (NV12 and I420
 * of one picture get the same noise). CUDA memory of the element's context is
 * noised by a CUDA kernel where it is (zero-copy, one pass from the input to the
 * output buffer); system memory on the CPU on every hardware thread. Both give
 * the same output for the same seed and frame (up to one code value on a
 * vanishing share of samples where CUDA's and glibc's log, sin or cos differ in
 * the last bit: kernels/include/cudadenoise/counter_noise.h). A stream with CUDA memory on one pad
 * and system memory on the other is noised on the CPU, the CUDA side mapped
 * through its staging copy. CUDA failures are element errors.
 *
 * It accepts the same formats and memory kinds as cudadenoise. The noise is not
 * that of earlier versions (one sequential xoshiro256** stream on the CPU,
 * kernels/include/cudadenoise/noise.h, which the tools still use).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! cudaaddnoise sigma=25 seed=7 ! tee name=t \
 *     t. ! queue ! videoconvert ! autovideosink \
 *     t. ! queue ! cudadenoise ! videoconvert ! autovideosink
 * ]| Shows a noisy test picture and its denoised version (system memory: CPU noise).
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,format=NV12,width=1920,height=1080 ! \
 *     cudaupload ! cudaaddnoise sigma=20 ! cudadenoise preset=live ! fakesink sync=true
 * ]| A live 1080p source noised on the GPU, then denoised, all in CUDA memory.
 *
 * Since: 0.1
 */

#include "gstcudaaddnoise.h"

#include <memory>
#include <new>
#include <string>

#include "cudadenoise/counter_noise.h"
#include "cudadenoise/error.h"

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
  /* The CUDA kernel's object (its stream), made in the element's context at the
   * first device frame; destroyed with that context pushed. */
  std::unique_ptr<cdn::CounterNoiseCuda> device;
  bool host_fallback_logged = false;
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
  /* The kernel's stream belongs to the context it was made in, still set here. */
  GstCdnContextGuard push (base);
  GST_CUDA_ADD_NOISE (base)->state = AddNoiseState ();
}

static GstFlowReturn
gst_cuda_add_noise_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaAddNoise *self = GST_CUDA_ADD_NOISE (trans);
  GstCdnBaseTransform *base = GST_CDN_BASE_TRANSFORM (trans);
  AddNoiseState *state = &self->state;

  g_mutex_lock (&self->lock);
  const AddNoiseSettings settings = self->settings;
  g_mutex_unlock (&self->lock);

  /* Both buffers CUDA memory of our context: the kernel, where they are.
   * Otherwise the CPU, a CUDA buffer mapped through its staging copy. */
  const bool device = gst_cdn_base_transform_on_device (base, inbuf, true) &&
      gst_cdn_base_transform_on_device (base, outbuf, true);
  if (!device && (gst_cdn_buffer_is_cuda (inbuf) || gst_cdn_buffer_is_cuda (outbuf)) &&
      !state->host_fallback_logged) {
    GST_INFO_OBJECT (self, "CUDA memory on one pad only, or of another context: noise made on the CPU");
    state->host_fallback_logged = true;
  }

  GstCdnContextGuard push (base);
  if (!push.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("could not make the CUDA context current"), (nullptr));
    return GST_FLOW_ERROR;
  }
  GstCdnMappedFrame in, out;
  std::string error;
  if (!in.map (inbuf, &base->in_info, GST_MAP_READ, device, &error) ||
      !out.map (outbuf, &base->out_info, GST_MAP_WRITE, device, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("could not map a frame"), ("%s", error.c_str ()));
    return GST_FLOW_ERROR;
  }
  const guint64 seed = settings.seed + state->frames;
  const GstFlowReturn ret = gst_cdn_guarded (base, "adding noise", device ? "CUDA" : "CPU", [&] {
    if (device) {
      if (!state->device)
        state->device = cdn::CounterNoiseCuda::create ();
      state->device->add (in.view (), out.view (), settings.sigma, seed);
    } else {
      cdn::add_counter_noise (in.view (), out.view (), settings.sigma, seed);
    }
  });
  if (ret != GST_FLOW_OK)
    return ret;
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT ": sigma %g, seed %" G_GUINT64_FORMAT " on the %s",
      state->frames, settings.sigma, seed, device ? "GPU" : "CPU");
  state->frames++;
  return GST_FLOW_OK;
}

/* The base class finds the CUDA context; a device it could not use is reported. */
static gboolean
gst_cuda_add_noise_start (GstBaseTransform * trans)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans))
    return FALSE;
  gst_cdn_base_transform_warn_cpu_fallback (GST_CDN_BASE_TRANSFORM (trans));
  return TRUE;
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
      "Adds reproducible white Gaussian noise to video, on the GPU for CUDA memory and on the CPU for system "
      "memory, for demos and evaluation",
      "cudadenoise developers");
  gst_cdn_base_transform_add_pad_templates (element_class);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_add_noise_start);
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
