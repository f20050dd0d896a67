/* cudadenoise: PI-PD / hybrid PI-PD per frame and NLM-3D over a temporal window (kernels/denoiser.h, kernels/stream_denoiser.h). */
#pragma once

#include "gstcdnbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_DENOISE (gst_cuda_denoise_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaDenoise, gst_cuda_denoise, GST, CUDA_DENOISE, GstCdnBaseTransform)

/* Enum types of the `mode`, `planes` and `backend` properties; their nicks are
 * the library's names (cdn::mode_name, planes_name, backend_name). */
#define GST_TYPE_CUDA_DENOISE_MODE (gst_cuda_denoise_mode_get_type ())
GType gst_cuda_denoise_mode_get_type (void);
#define GST_TYPE_CUDA_DENOISE_PLANES (gst_cuda_denoise_planes_get_type ())
GType gst_cuda_denoise_planes_get_type (void);
#define GST_TYPE_CUDA_DENOISE_BACKEND (gst_cuda_denoise_backend_get_type ())
GType gst_cuda_denoise_backend_get_type (void);

G_END_DECLS
