/* gstcdncaps.h: caps and negotiation for the cudadenoise plugin's elements:
 * the formats and memory kinds they take (the same on both pads), the mapping
 * of GStreamer formats to the library's, and readable reasons for caps they
 * cannot take. No element state: the base class (gstcdnbasetransform.h) calls
 * these from its GstBaseTransform vfuncs. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>

#include "cudadenoise/frame.h"
#include "cudadenoise/settings.h"

/* Formats in CUDA memory are those of the 1.22 CUDA allocator that the kernels
 * know; its allocator has no gray layouts, so GRAY8 and GRAY16_LE are system
 * memory only. */
#define GST_CDN_CUDA_FORMATS "{ NV12, I420, P010_10LE, P016_LE, Y444 }"
#define GST_CDN_SYSTEM_FORMATS "{ NV12, I420, P010_10LE, P016_LE, Y444, GRAY8, GRAY16_LE }"

/* GstVideoFormat -> cdn::PixelFormat (by name); FALSE when the library lacks it. */
gboolean gst_cdn_pixel_format (GstVideoFormat format, cdn::PixelFormat * out);

/* Caps (features) that carry memory:CUDAMemory: the first structure, or all of them. */
gboolean gst_cdn_caps_features_are_cuda (GstCapsFeatures * features);
gboolean gst_cdn_caps_are_cuda (GstCaps * caps);
gboolean gst_cdn_caps_all_cuda (GstCaps * caps);

/* Both pads' template: CUDA memory (with gst-cuda) and system memory. */
GstCaps *gst_cdn_template_caps (void);

/* The caps on the other pad for `caps` on one: the same format and size, the
 * incoming memory kind first, then the other one (CUDA only when `cuda`), within
 * the other pad's template `templ` and `filter` (may be NULL), in the filter's
 * order. With `cuda_first` (the caps of our sink pad, on the CUDA backend) CUDA
 * memory comes first whatever the order of `caps` and `filter`: an uploader in
 * front of us (cudaupload lists system memory first, and so passes system memory
 * through to whoever accepts it) then hands us device memory, and the frames
 * stay on the GPU from there. */
GstCaps *gst_cdn_transform_caps (GstCaps * caps, GstCaps * templ, gboolean cuda, GstCaps * filter,
    gboolean cuda_first = FALSE);

/* A readable reason why `caps` (offered to a sink pad) cannot be taken, or ""
 * when they are not raw video or something in them is supported. */
std::string gst_cdn_explain_unsupported (GstCaps * caps);

/* Why cudadenoise cannot run `mode` on input `in` of library format `format`
 * ("" when it can). Progressive video runs as it is. Interlaced video
 * (interleaved or mixed: both fields in each buffer, line by line) is the
 * library's call (cudadenoise/interlace.h): a mode that filters the fields apart
 * gets *fields = TRUE (each buffer is filtered field by field), one that
 * does not is refused with the library's words; so are a height whose fields do
 * not split evenly and the layouts with a field per buffer (alternate).
 * cudaaddnoise takes interlaced video as it is (its noise is per pixel). */
std::string gst_cdn_interlace_refusal (const GstVideoInfo * in, cdn::PixelFormat format, cdn::Mode mode,
    gboolean * fields);

/* Why negotiated caps cannot be filtered ("" when they can), with *format set
 * when they can: input and output must have one format and size the library
 * knows; I420 with an odd height does not fit 1.22's CUDA allocator. */
std::string gst_cdn_caps_refusal (GstCaps * incaps, const GstVideoInfo * in, const GstVideoInfo * out,
    gboolean cuda, cdn::PixelFormat * format);
