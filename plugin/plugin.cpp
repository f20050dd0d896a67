/* The cudadenoise plugin: registers cudadenoise and cudaaddnoise.
 *
 * When the CUDA driver library loads, the CUDA memory path is available (the
 * elements then also offer video/x-raw(memory:CUDAMemory)). When it does not
 * (no driver, no GPU) the elements still register: they run the CPU backend on
 * system memory, so pipelines and tests work anywhere.
 */
#include <gst/gst.h>

#include "cudadenoise/backend.h"
#include "gstcudaaddnoise.h"
#include "gstcudadenoise.h"

GST_DEBUG_CATEGORY_STATIC (gst_cudadenoise_plugin_debug);
#define GST_CAT_DEFAULT gst_cudadenoise_plugin_debug

static gboolean
plugin_init (GstPlugin * plugin)
{
  GST_DEBUG_CATEGORY_INIT (gst_cudadenoise_plugin_debug, "cudadenoiseplugin", 0, "cudadenoise plugin");

#ifdef CDN_GST_CUDA
  /* The gst-cuda Cu* wrappers assert that the driver library is loaded. */
  if (gst_cuda_load_library ()) {
    gst_cuda_memory_init_once ();
    GST_INFO ("CUDA driver library loaded: CUDA memory path available");
  } else {
    GST_INFO ("CUDA driver library not loadable: registering with the CPU backend on system memory only");
  }
#else
  GST_INFO ("built without GStreamer CUDA support: system memory only (CUDA kernels: %s)",
      cdn::built_with_cuda () ? "yes" : "no");
#endif

  gboolean ok = gst_element_register (plugin, "cudadenoise", GST_RANK_NONE, GST_TYPE_CUDA_DENOISE);
  ok &= gst_element_register (plugin, "cudaaddnoise", GST_RANK_NONE, GST_TYPE_CUDA_ADD_NOISE);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudadenoise,
    "GPU video denoising (the cudadenoise library's per-frame and temporal modes) on CUDA memory or system memory",
    plugin_init, VERSION, "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
