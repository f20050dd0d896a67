/* gstcudadenoiseproperties.h: cudadenoise's properties, made from the library:
 * the `mode`, `planes` and `backend` enums (their nicks are cdn::mode_name,
 * planes_name, backend_name), one property per cdn::param_specs() entry, so
 * that gst-inspect, the tools' --help and validation never drift apart, and
 * the noise-profile file (cudadenoise/noise_profile.h: not in the table). */
#pragma once

#include <gst/gst.h>

#include "cudadenoise/noise_model.h"
#include "cudadenoise/presets.h"
#include "cudadenoise/settings.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_DENOISE_MODE (gst_cuda_denoise_mode_get_type ())
GType gst_cuda_denoise_mode_get_type (void);
#define GST_TYPE_CUDA_DENOISE_PLANES (gst_cuda_denoise_planes_get_type ())
GType gst_cuda_denoise_planes_get_type (void);
#define GST_TYPE_CUDA_DENOISE_BACKEND (gst_cuda_denoise_backend_get_type ())
GType gst_cuda_denoise_backend_get_type (void);
/* The presets this build offers (cdn::available_presets), valued by their index there. */
#define GST_TYPE_CUDA_DENOISE_PRESET (gst_cuda_denoise_preset_get_type ())
GType gst_cuda_denoise_preset_get_type (void);

G_END_DECLS

/* Property ids: the enums, then one per cdn::param_specs() entry. */
enum
{
  GST_CUDA_DENOISE_PROP_0,
  GST_CUDA_DENOISE_PROP_MODE,
  GST_CUDA_DENOISE_PROP_PLANES,
  GST_CUDA_DENOISE_PROP_BACKEND,
  GST_CUDA_DENOISE_PROP_PRESET,
  GST_CUDA_DENOISE_PROP_ESTIMATED_SIGMA,
  GST_CUDA_DENOISE_PROP_NOISE_PROFILE,
  GST_CUDA_DENOISE_PROP_CUDA_DEVICES,
  GST_CUDA_DENOISE_PROP_PARAM_FIRST,
};

/* Installs every property on the class (defaults: the default preset's settings and Auto). */
void gst_cuda_denoise_install_properties (GObjectClass * klass);

/* The table entry of a property id, or NULL for the enum properties. */
const cdn::ParamSpec *gst_cuda_denoise_param_of (guint prop_id);

/* `value` into the choice (preset, mode, planes or a table entry, each set
 * explicitly: it overrides the preset); FALSE for another id. Throws
 * cdn::InvalidArgument for a preset this build does not offer. */
gboolean gst_cuda_denoise_settings_from_value (cdn::SettingsChoice * c, guint prop_id, const GValue * value);
/* The value of the resolved settings `s` (a preset: the choice's); FALSE for another id. */
gboolean gst_cuda_denoise_settings_to_value (const cdn::SettingsChoice & c, const cdn::DenoiseSettings & s,
    guint prop_id, GValue * value);
/* The estimated-sigma property's value: one double per component. */
void gst_cuda_denoise_sigma_to_value (const std::vector<double> &sigma, GValue * value);
/* The cudadenoise-noise message's model fields (docs/ELEMENT.md, "The noise
 * message"): "noise-model" (cdn::noise_model_name of `kind`) and, for each
 * plane of `models` (luma first, 8-bit code values), "noise-a", "noise-b" and
 * "noise-curve" (per plane a list of [x, sigma] points, empty without a curve). */
void gst_cuda_denoise_models_to_structure (cdn::NoiseModelKind kind, const std::vector<cdn::NoiseModel> &models,
    GstStructure * s);
