/* gstcdncaps.cpp: caps and negotiation (gstcdncaps.h). */
#include "gstcdncaps.h"

#include <vector>

#include "cudadenoise/interlace.h"

#ifdef CDN_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

gboolean
gst_cdn_pixel_format (GstVideoFormat format, cdn::PixelFormat * out)
{
  const gchar *name = gst_video_format_to_string (format);
  return name && cdn::parse_format (name, out);
}

gboolean
gst_cdn_caps_features_are_cuda (GstCapsFeatures * features)
{
#ifdef CDN_GST_CUDA
  return features && !gst_caps_features_is_any (features) &&
      gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
#else
  (void) features;
  return FALSE;
#endif
}

gboolean
gst_cdn_caps_are_cuda (GstCaps * caps)
{
  return caps && gst_caps_get_size (caps) > 0 && gst_cdn_caps_features_are_cuda (gst_caps_get_features (caps, 0));
}

gboolean
gst_cdn_caps_all_cuda (GstCaps * caps)
{
  if (!caps || gst_caps_is_any (caps) || gst_caps_is_empty (caps))
    return FALSE;
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    if (!gst_cdn_caps_features_are_cuda (gst_caps_get_features (caps, i)))
      return FALSE;
  return TRUE;
}

GstCaps *
gst_cdn_template_caps (void)
{
  GstCaps *caps = gst_caps_new_empty ();
#ifdef CDN_GST_CUDA
  gst_caps_append (caps, gst_caps_from_string (GST_VIDEO_CAPS_MAKE_WITH_FEATURES (
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_CDN_CUDA_FORMATS)));
#endif
  gst_caps_append (caps, gst_caps_from_string (GST_VIDEO_CAPS_MAKE (GST_CDN_SYSTEM_FORMATS)));
  return caps;
}

GstCaps *
gst_cdn_transform_caps (GstCaps * caps, GstCaps * templ, gboolean cuda, GstCaps * filter, gboolean cuda_first)
{
  GstCaps *tmp;
  if (gst_caps_is_any (caps)) {
    tmp = gst_caps_ref (templ);
  } else {
    /* Same format and size; the incoming memory kind first, then the other. */
    tmp = gst_caps_new_empty ();
    for (int pass = 0; pass < 2; pass++) {
      for (guint i = 0; i < gst_caps_get_size (caps); i++) {
        GstCapsFeatures *f = gst_caps_get_features (caps, i);
        if (f && gst_caps_features_is_any (f))
          continue;
        GstCapsFeatures *nf;
        if (pass == 0)
          nf = f ? gst_caps_features_copy (f) : nullptr;
        else if (gst_cdn_caps_features_are_cuda (f))
          nf = gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, NULL);
#ifdef CDN_GST_CUDA
        else if (cuda)
          nf = gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL);
#endif
        else
          continue;
        tmp = gst_caps_merge_structure_full (tmp, gst_structure_copy (gst_caps_get_structure (caps, i)), nf);
      }
    }
  }

  GstCaps *result = gst_caps_intersect_full (tmp, templ, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (tmp);

  if (!cuda) {
    result = gst_caps_make_writable (result);
    for (gint i = (gint) gst_caps_get_size (result) - 1; i >= 0; i--)
      if (gst_cdn_caps_features_are_cuda (gst_caps_get_features (result, i)))
        gst_caps_remove_structure (result, i);
  }

  if (cuda && cuda_first) {
    /* The CUDA structures first, each kind in its order. */
    GstCaps *cuda_part = gst_caps_new_empty (), *system_part = gst_caps_new_empty ();
    for (guint i = 0; i < gst_caps_get_size (result); i++) {
      GstCapsFeatures *f = gst_caps_get_features (result, i);
      GstCaps **part = gst_cdn_caps_features_are_cuda (f) ? &cuda_part : &system_part;
      *part = gst_caps_merge_structure_full (*part, gst_structure_copy (gst_caps_get_structure (result, i)),
          f ? gst_caps_features_copy (f) : nullptr);
    }
    gst_caps_unref (result);
    result = gst_caps_merge (cuda_part, system_part);
  }
  if (filter) {
    GstCaps *f = cuda && cuda_first ? gst_caps_intersect_full (result, filter, GST_CAPS_INTERSECT_FIRST)
        : gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = f;
  }
  return result;
}

/* A readable reason why `caps` (offered to our sink pad) cannot be taken, or ""
 * when they are not raw video or something in them is supported. */
std::string
gst_cdn_explain_unsupported (GstCaps * caps)
{
  if (!caps || gst_caps_is_any (caps) || gst_caps_is_empty (caps))
    return "";
  GstCaps *ours = gst_cdn_template_caps ();
  GstCaps *system = gst_caps_from_string (GST_VIDEO_CAPS_MAKE (GST_CDN_SYSTEM_FORMATS));
  std::vector<std::string> offered;
  gboolean format_ok_in_system = FALSE, cuda_offered = FALSE;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    GstCaps *one = gst_caps_copy_nth (caps, i);
    const gboolean ok = gst_caps_can_intersect (one, ours);
    if (!gst_structure_has_name (s, "video/x-raw") || ok) {
      gst_caps_unref (one);
      gst_caps_unref (ours);
      gst_caps_unref (system);
      return "";
    }
    /* Would this format do in system memory? */
    GstCaps *as_system = gst_caps_new_full (gst_structure_copy (s), NULL);
    format_ok_in_system |= gst_caps_can_intersect (as_system, system);
    gst_caps_unref (as_system);
    gst_caps_unref (one);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    cuda_offered |= f && !gst_caps_features_is_any (f) && !gst_caps_features_is_equal (f, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY);
    gchar *fs = f ? gst_caps_features_to_string (f) : g_strdup ("memory:SystemMemory");
    const GValue *v = gst_structure_get_value (s, "format");
    gchar *vs = v ? gst_value_serialize (v) : g_strdup ("(any)");
    offered.push_back (std::string ("format ") + vs + " in " + fs);
    g_free (vs);
    g_free (fs);
  }
  gst_caps_unref (ours);
  gst_caps_unref (system);
  std::string msg = "cannot take video/x-raw with ";
  for (size_t i = 0; i < offered.size () && i < 4; i++)
    msg += (i ? "; " : "") + offered[i];
  if (offered.size () > 4)
    msg += "; ...";
#ifdef CDN_GST_CUDA
  msg += ". Supported: NV12, I420, P010_10LE, P016_LE, Y444 in memory:CUDAMemory or system memory, "
      "GRAY8 and GRAY16_LE in system memory only.";
#else
  msg += ". Supported: NV12, I420, P010_10LE, P016_LE, Y444, GRAY8, GRAY16_LE in system memory "
      "(this build has no GStreamer CUDA support).";
#endif
  if (cuda_offered && format_ok_in_system)
    msg += " Put a download element (cudadownload) in front of it.";
  else
    msg += " Put videoconvert (or cudaconvert) in front of it.";
  return msg;
}

std::string
gst_cdn_interlace_refusal (const GstVideoInfo * in, cdn::PixelFormat format, cdn::Mode mode, gboolean * fields)
{
  *fields = FALSE;
  if (!GST_VIDEO_INFO_IS_INTERLACED (in))
    return "";
  const GstVideoInterlaceMode layout = GST_VIDEO_INFO_INTERLACE_MODE (in);
  const std::string interlaced = std::string ("the input is interlaced (interlace-mode=") +
      gst_video_interlace_mode_to_string (layout) + ")";
  if (layout != GST_VIDEO_INTERLACE_MODE_INTERLEAVED && layout != GST_VIDEO_INTERLACE_MODE_MIXED)
    return interlaced + ": cudadenoise takes both fields of a frame in one buffer (interleaved or mixed) only; "
        "deinterlace it first (e.g. deinterlace before cudadenoise)";
  const std::string refusal = cdn::interlaced_refusal (mode, "e.g. deinterlace before cudadenoise");
  if (!refusal.empty ())
    return interlaced + ": mode=" + refusal;
  const std::string misfit = cdn::fields_misfit (format, GST_VIDEO_INFO_HEIGHT (in));
  if (!misfit.empty ())
    return "the input is interlaced with " + misfit;
  *fields = TRUE;
  return "";
}

std::string
gst_cdn_caps_refusal (GstCaps * incaps, const GstVideoInfo * in, const GstVideoInfo * out, gboolean cuda,
    cdn::PixelFormat * format)
{
  if (!gst_cdn_pixel_format (GST_VIDEO_INFO_FORMAT (in), format) ||
      GST_VIDEO_INFO_FORMAT (in) != GST_VIDEO_INFO_FORMAT (out) ||
      GST_VIDEO_INFO_WIDTH (in) != GST_VIDEO_INFO_WIDTH (out) ||
      GST_VIDEO_INFO_HEIGHT (in) != GST_VIDEO_INFO_HEIGHT (out)) {
    const std::string why = gst_cdn_explain_unsupported (incaps);
    return why.empty () ? "input and output differ in format or size" : why;
  }
  /* GStreamer 1.22's CUDA allocator places I420's V plane height/2 rows after U,
   * so with an odd height U's last row and V's first row are the same memory. */
  if (cuda && *format == cdn::PixelFormat::I420 && GST_VIDEO_INFO_HEIGHT (in) % 2 != 0)
    return "I420 with an odd height (" + std::to_string (GST_VIDEO_INFO_HEIGHT (in)) +
        ") is not supported in CUDA memory: GStreamer 1.22's CUDA allocator overlaps the U and V planes by one "
        "row at odd heights; use NV12, an even height or system memory";
  return "";
}
