/* cudaaddnoise: deterministic additive white Gaussian noise (kernels/include/cudadenoise/noise.h). */
#pragma once

#include "gstcdnbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_ADD_NOISE (gst_cuda_add_noise_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaAddNoise, gst_cuda_add_noise, GST, CUDA_ADD_NOISE, GstCdnBaseTransform)

G_END_DECLS
