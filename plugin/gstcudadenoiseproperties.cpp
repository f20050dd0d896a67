/* gstcudadenoiseproperties.cpp: cudadenoise's properties from the library's
 * names and parameter table (gstcudadenoiseproperties.h). */
#include "gstcudadenoiseproperties.h"

#include <cmath>
#include <string>
#include <vector>

#include "cudadenoise/error.h"

/* Every mode of the library: nick cdn::mode_name, description cdn::mode_description. */
GType
gst_cuda_denoise_mode_get_type (void)
{
  static gsize type = 0;
  if (g_once_init_enter (&type)) {
    const std::vector<cdn::Mode> modes = cdn::all_modes ();
    GEnumValue *values = g_new0 (GEnumValue, modes.size () + 1);
    for (size_t i = 0; i < modes.size (); i++) {
      values[i].value = (gint) modes[i];
      values[i].value_name = cdn::mode_description (modes[i]);
      values[i].value_nick = cdn::mode_name (modes[i]);
    }
    g_once_init_leave (&type, g_enum_register_static ("GstCudaDenoiseMode", values));
  }
  return (GType) type;
}

GType
gst_cuda_denoise_planes_get_type (void)
{
  static gsize type = 0;
  if (g_once_init_enter (&type)) {
    static GEnumValue values[] = {
      {(gint) cdn::PlaneSelection::Luma, "Filter luma only; chroma is copied", nullptr},
      {(gint) cdn::PlaneSelection::All, "Filter luma and both chroma components", nullptr},
      {0, nullptr, nullptr},
    };
    values[0].value_nick = cdn::planes_name (cdn::PlaneSelection::Luma);
    values[1].value_nick = cdn::planes_name (cdn::PlaneSelection::All);
    g_once_init_leave (&type, g_enum_register_static ("GstCudaDenoisePlanes", values));
  }
  return (GType) type;
}

GType
gst_cuda_denoise_backend_get_type (void)
{
  static gsize type = 0;
  if (g_once_init_enter (&type)) {
    static GEnumValue values[] = {
      {(gint) cdn::Backend::Auto, "CUDA when a device is usable, else the CPU", nullptr},
      {(gint) cdn::Backend::Cuda, "CUDA kernels (fails to start without a usable device)", nullptr},
      {(gint) cdn::Backend::Cpu, "CPU reference (system memory only)", nullptr},
      {0, nullptr, nullptr},
    };
    values[0].value_nick = cdn::backend_name (cdn::Backend::Auto);
    values[1].value_nick = cdn::backend_name (cdn::Backend::Cuda);
    values[2].value_nick = cdn::backend_name (cdn::Backend::Cpu);
    g_once_init_leave (&type, g_enum_register_static ("GstCudaDenoiseBackend", values));
  }
  return (GType) type;
}

/* The presets this build offers: nick the preset's name, description its job. */
GType
gst_cuda_denoise_preset_get_type (void)
{
  static gsize type = 0;
  if (g_once_init_enter (&type)) {
    const std::vector<const cdn::Preset *> presets = cdn::available_presets ();
    GEnumValue *values = g_new0 (GEnumValue, presets.size () + 1);
    for (size_t i = 0; i < presets.size (); i++) {
      values[i].value = (gint) i;
      values[i].value_name = presets[i]->job;
      values[i].value_nick = presets[i]->name;
    }
    g_once_init_leave (&type, g_enum_register_static ("GstCudaDenoisePreset", values));
  }
  return (GType) type;
}

static gint
preset_index (const std::string & name)
{
  const std::vector<const cdn::Preset *> presets = cdn::available_presets ();
  for (size_t i = 0; i < presets.size (); i++)
    if (name == presets[i]->name)
      return (gint) i;
  return 0;
}

/* The property blurb of a table entry: its help, then the modes it applies to
 * and when a change while playing applies (cdn::restarts_stream). */
static const gchar *
param_blurb (const cdn::ParamSpec & p)
{
  std::string modes, temporal;
  int n = 0, per_frame = 0;
  for (cdn::Mode m : cdn::all_modes ())
    if (cdn::param_group_applies (p.group, m)) {
      modes += std::string (n++ ? ", " : "") + cdn::mode_name (m);
      if (cdn::is_temporal (m))
        temporal += std::string (temporal.empty ()? "" : ", ") + cdn::mode_name (m);
      else
        per_frame++;
    }
  std::string blurb = std::string (p.blurb) + ". Applies to mode" + (n > 1 ? "s " : " ") + modes;
  if (p.word) {
    gchar value[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd (value, sizeof (value), "%g", p.word_value);
    blurb += std::string ("; this property takes ") + value + " for " + p.word;
  }
  if (!temporal.empty ())
    blurb += per_frame ? "; changes while playing apply at the next stream start in " + temporal +
        ", from the next frame otherwise" : std::string ("; changes while playing apply at the next stream start");
  return g_intern_string (blurb.c_str ());
}

/* The mode property's blurb, naming the temporal modes as the library lists them. */
static const gchar *
mode_blurb (void)
{
  std::string temporal;
  for (cdn::Mode m : cdn::all_modes ())
    if (cdn::is_temporal (m))
      temporal += std::string (temporal.empty ()? "" : ", ") + cdn::mode_name (m);
  return g_intern_string (("Denoising algorithm (default: the preset's); into or out of a temporal mode (" + temporal +
          ") while playing it applies at the next stream start, between per-frame modes from the next frame").c_str ());
}

/* The enum type of an enumerated table entry (ParamSpec::choices), its values'
 * nicks the choices: e.g. GstCudaDenoiseBm3dProfile for bm3d-profile. */
static GType
param_enum_type (const cdn::ParamSpec & p)
{
  std::string type_name = "GstCudaDenoise";
  bool upper = true;
  for (const char *c = p.name; *c; c++) {
    if (*c == '-') {
      upper = true;
      continue;
    }
    type_name += upper ? g_ascii_toupper (*c) : *c;
    upper = false;
  }
  GType type = g_type_from_name (type_name.c_str ());
  if (type)
    return type;
  int n = 0;
  while (p.choices[n])
    n++;
  GEnumValue *values = g_new0 (GEnumValue, n + 1);      /* registered for good: never freed */
  for (int k = 0; k < n; k++) {
    values[k].value = (gint) p.min + k;
    values[k].value_name = p.choices[k];
    values[k].value_nick = p.choices[k];
  }
  return g_enum_register_static (g_intern_string (type_name.c_str ()), values);
}

void
gst_cuda_denoise_install_properties (GObjectClass * klass)
{
  const cdn::DenoiseSettings defaults = cdn::SettingsChoice ().resolve ();
  const GParamFlags live = (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
      GST_PARAM_DOC_SHOW_DEFAULT | G_PARAM_STATIC_STRINGS);
  g_object_class_install_property (klass, GST_CUDA_DENOISE_PROP_PRESET,
      g_param_spec_enum ("preset", "Preset", "A mode and its parameters for a job (docs/PRESETS.md); every property "
          "set explicitly (mode, planes, strength, sigma, any parameter) overrides it, whatever the order",
          GST_TYPE_CUDA_DENOISE_PRESET, preset_index (cdn::default_preset_name ()), live));
  g_object_class_install_property (klass, GST_CUDA_DENOISE_PROP_ESTIMATED_SIGMA,
      gst_param_spec_array ("estimated-sigma", "Estimated sigma", "The noise sigma per component (luma first), in "
          "8-bit code values, before strength: with sigma=auto the estimate tracked over the frames (docs/NOISE.md; "
          "0.5 before a frame with usable content; an element message cudadenoise-noise is posted when it moves by "
          "more than 5 %), else the given sigma; empty for modes that take no sigma and before the first frame",
          g_param_spec_double ("sigma", "sigma", "one component's sigma", 0.0, 255.0, 0.0, G_PARAM_READABLE),
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (klass, GST_CUDA_DENOISE_PROP_NOISE_PROFILE,
      g_param_spec_string ("noise-profile", "Noise profile", "A noise profile file (JSON; docs/NOISE.md; "
          "cudadenoise-image --save-noise-profile measures one): one noise model per plane, used with "
          "noise-model=signal or curve in place of noise-a, noise-b or an estimate; empty: none. Setting it reads "
          "the file: one that cannot be read or is not a profile is a warning while playing and an error at the "
          "next start, and the previous settings stay meanwhile; a new profile while playing goes to the stream "
          "like any other setting (when it applies: cdn::restarts_stream)", "", live));
  g_object_class_install_property (klass, GST_CUDA_DENOISE_PROP_MODE,
      g_param_spec_enum ("mode", "Mode", mode_blurb (), GST_TYPE_CUDA_DENOISE_MODE, (gint) defaults.mode, live));
  g_object_class_install_property (klass, GST_CUDA_DENOISE_PROP_PLANES,
      g_param_spec_enum ("planes", "Planes", "Colour components to filter", GST_TYPE_CUDA_DENOISE_PLANES,
          (gint) defaults.planes, live));
  g_object_class_install_property (klass, GST_CUDA_DENOISE_PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend", "Where frames are filtered", GST_TYPE_CUDA_DENOISE_BACKEND,
          (gint) cdn::Backend::Auto,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | GST_PARAM_DOC_SHOW_DEFAULT |
              G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (klass, GST_CUDA_DENOISE_PROP_CUDA_DEVICES,
      g_param_spec_string ("cuda-devices", "CUDA devices", "CUDA devices a temporal mode spreads "
          "its chunks over, one worker each, as N[,N...] (an index may repeat: two workers on it); frames come in "
          "and go out on cuda-device-id's device, and the output is the same for any list. Empty: that device "
          "alone. Read when a stream starts (at the caps after READY, new caps, or the first buffer of a new CUDA context); "
          "the CPU backend and the per-frame modes ignore it", "",
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | GST_PARAM_DOC_SHOW_DEFAULT |
              G_PARAM_STATIC_STRINGS)));

  /* The numeric parameters come from the library's table, like the tools' flags:
   * every mode's, each saying which modes it applies to. */
  const auto & specs = cdn::param_specs ();
  for (size_t i = 0; i < specs.size (); i++) {
    const cdn::ParamSpec & p = specs[i];
    const gchar *blurb = param_blurb (p);
    const double def = p.get (defaults);        /* the default preset's value */
    GParamSpec *pspec = p.choices
        ? g_param_spec_enum (p.name, p.name, blurb, param_enum_type (p), (gint) def, live)
        : p.integer
        ? g_param_spec_int (p.name, p.name, blurb, (gint) p.min, (gint) p.max, (gint) def, live)
        : g_param_spec_double (p.name, p.name, blurb, p.min, p.max, def, live);
    g_object_class_install_property (klass, GST_CUDA_DENOISE_PROP_PARAM_FIRST + (guint) i, pspec);
  }
}

const cdn::ParamSpec *
gst_cuda_denoise_param_of (guint prop_id)
{
  const auto & specs = cdn::param_specs ();
  if (prop_id < GST_CUDA_DENOISE_PROP_PARAM_FIRST || prop_id >= GST_CUDA_DENOISE_PROP_PARAM_FIRST + specs.size ())
    return nullptr;
  return &specs[prop_id - GST_CUDA_DENOISE_PROP_PARAM_FIRST];
}

gboolean
gst_cuda_denoise_settings_from_value (cdn::SettingsChoice * c, guint prop_id, const GValue * value)
{
  if (prop_id == GST_CUDA_DENOISE_PROP_PRESET) {
    const std::vector<const cdn::Preset *> presets = cdn::available_presets ();
    const gint i = g_value_get_enum (value);
    if (i < 0 || i >= (gint) presets.size ())
      throw cdn::InvalidArgument ("no such preset");
    c->set_preset (presets[i]->name);
  } else if (prop_id == GST_CUDA_DENOISE_PROP_MODE) {
    c->set_mode ((cdn::Mode) g_value_get_enum (value));
  } else if (prop_id == GST_CUDA_DENOISE_PROP_PLANES) {
    c->set_planes ((cdn::PlaneSelection) g_value_get_enum (value));
  } else if (const cdn::ParamSpec * spec = gst_cuda_denoise_param_of (prop_id)) {
    c->set_param (*spec, G_VALUE_HOLDS_ENUM (value) ? (double) g_value_get_enum (value)
        : spec->integer ? (double) g_value_get_int (value) : g_value_get_double (value));
  } else {
    return FALSE;
  }
  return TRUE;
}

void
gst_cuda_denoise_sigma_to_value (const std::vector<double> &sigma, GValue * value)
{
  for (double v : sigma) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, G_TYPE_DOUBLE);
    g_value_set_double (&item, v);
    gst_value_array_append_and_take_value (value, &item);
  }
}

/* A GST_TYPE_ARRAY value of doubles. */
static void
doubles_value (const std::vector<double> &values, GValue * array)
{
  g_value_init (array, GST_TYPE_ARRAY);
  gst_cuda_denoise_sigma_to_value (values, array);
}

void
gst_cuda_denoise_models_to_structure (cdn::NoiseModelKind kind, const std::vector<cdn::NoiseModel> &models,
    GstStructure * s)
{
  gst_structure_set (s, "noise-model", G_TYPE_STRING, cdn::noise_model_name (kind), nullptr);
  if (kind == cdn::NoiseModelKind::Constant || models.empty ())
    return;
  std::vector<double> a, b;
  GValue curves = G_VALUE_INIT;
  g_value_init (&curves, GST_TYPE_ARRAY);
  for (const cdn::NoiseModel & m : models) {
    a.push_back (m.a);
    b.push_back (m.b);
    GValue curve = G_VALUE_INIT;
    g_value_init (&curve, GST_TYPE_ARRAY);
    for (const cdn::NoiseModelLevel & l : m.levels) {
      if (!l.usable ())
        continue;
      GValue point = G_VALUE_INIT;
      doubles_value ({l.mean, std::sqrt (l.variance)}, &point);
      gst_value_array_append_and_take_value (&curve, &point);
    }
    gst_value_array_append_and_take_value (&curves, &curve);
  }
  GValue va = G_VALUE_INIT, vb = G_VALUE_INIT;
  doubles_value (a, &va);
  doubles_value (b, &vb);
  gst_structure_take_value (s, "noise-a", &va);
  gst_structure_take_value (s, "noise-b", &vb);
  gst_structure_take_value (s, "noise-curve", &curves);
}

gboolean
gst_cuda_denoise_settings_to_value (const cdn::SettingsChoice & c, const cdn::DenoiseSettings & s, guint prop_id,
    GValue * value)
{
  if (prop_id == GST_CUDA_DENOISE_PROP_PRESET) {
    g_value_set_enum (value, preset_index (c.preset ()));
  } else if (prop_id == GST_CUDA_DENOISE_PROP_MODE) {
    g_value_set_enum (value, (gint) s.mode);
  } else if (prop_id == GST_CUDA_DENOISE_PROP_PLANES) {
    g_value_set_enum (value, (gint) s.planes);
  } else if (const cdn::ParamSpec * spec = gst_cuda_denoise_param_of (prop_id)) {
    if (G_VALUE_HOLDS_ENUM (value))
      g_value_set_enum (value, (gint) spec->get (s));
    else if (spec->integer)
      g_value_set_int (value, (gint) spec->get (s));
    else
      g_value_set_double (value, spec->get (s));
  } else {
    return FALSE;
  }
  return TRUE;
}
