/* gstcdnsharedcontext: one GstCudaContext per CUDA device for every cudadenoise
 * and cudaaddnoise element of the process.
 *
 * GStreamer 1.22's gst_cuda_ensure_element_context() takes a context from the
 * element's neighbours or from the application (need-context), and else makes a
 * new one (a new CUcontext), which it announces with have-context. A bin keeps
 * one context of a type: with chains on several GPUs in one pipeline (chain i
 * on GPU i mod G), the bin's context is for another device about half of the
 * time, and each such chain makes a CUcontext of its own. A GPU time-slices contexts
 * rather than run their kernels side by side (as N processes do), and each new
 * GstCudaContext enables peer access with every context of the other devices
 * under a global lock, at the start. So when neither the neighbours nor the
 * application give a context for the device, these elements take the process's
 * one for it (made on first use, released with its last user) instead of a new
 * one, and announce it as gst_cuda_ensure_element_context would. A context the
 * application or a neighbour gives still wins.
 */
#pragma once

#include <gst/gst.h>

#ifdef CDN_GST_CUDA
#include <gst/cuda/gstcudacontext.h>

/* As gst_cuda_ensure_element_context() (device_id -1: any device, else that one),
 * with the process's context for the device where it would make a new one.
 * `element`'s set_context must take a GstCudaContext of the device into *cuda_ctx
 * (gst_cuda_handle_set_context). */
gboolean gst_cdn_ensure_cuda_context (GstElement * element, GstPad * downstream, GstPad * upstream,
    gint device_id, GstCudaContext ** cuda_ctx);

/* The process's context for `device_id` (a new reference; made if none is alive),
 * or NULL where none can be made. */
GstCudaContext *gst_cdn_shared_cuda_context (guint device_id);
#endif
