/* cudadenoise: the library's per-frame and temporal denoising modes as a
 * GStreamer element (kernels/include/cudadenoise/stream_denoiser.h). */
#pragma once

#include "gstcdnbasetransform.h"
#include "gstcudadenoiseproperties.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_DENOISE (gst_cuda_denoise_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaDenoise, gst_cuda_denoise, GST, CUDA_DENOISE, GstCdnBaseTransform)

G_END_DECLS
