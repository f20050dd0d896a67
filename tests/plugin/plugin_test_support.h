// plugin_test_support.h: shared helpers of the plugin tests: GStreamer set-up,
// synthetic noisy frames as GstBuffers, cdn views of mapped frames, the CPU
// reference denoise and sample-exact comparison.
//
// The tests load the plugin from the build tree: meson runs them with
// GST_PLUGIN_PATH_1_0=<build>/plugin, GST_REGISTRY_1_0=<build>/registry.bin and
// CK_FORK=no (see tests/plugin/meson.build).
#pragma once

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cudadenoise/backend.h"
#include "cudadenoise/frame.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/presets.h"
#include "cudadenoise/settings.h"
#include "cudadenoise/stream_pump.h"

// Builds under AddressSanitizer (scripts/sanitize.sh; gcc defines
// __SANITIZE_ADDRESS__, clang answers __has_feature): the element runs several
// times slower, so wall-clock bounds are scaled by kSanitizerSlowdown, and
// freed memory stays in ASan's quarantine, so RSS says nothing of leaks there
// (LeakSanitizer checks them in that build).
#if defined(__SANITIZE_ADDRESS__)
#define CDN_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CDN_TEST_ASAN 1
#endif
#endif

namespace cdn_test {

#ifdef CDN_TEST_ASAN
inline constexpr double kSanitizerSlowdown = 4;
#else
inline constexpr double kSanitizerSlowdown = 1;
#endif

// gst_init once for the whole binary, before any test.
class GstEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { gst_init(nullptr, nullptr); }
};
inline ::testing::Environment* const kGstEnvironment = ::testing::AddGlobalTestEnvironment(new GstEnvironment);

// What cudadenoise runs with no property set: the default preset's settings
// (docs/PRESETS.md); properties set on top override it, as on this value.
inline cdn::DenoiseSettings element_defaults() { return cdn::SettingsChoice().resolve(); }

// NLM-3D with 2D patches and small radii (so it has a causal window): the
// element's properties, and the library's settings they give.
inline const char* const kSmallNlm3dProps =
    "mode=nlm3d search-radius=3 temporal-radius=2 patch-radius=1 chunk-size=4 sigma=15";
inline cdn::DenoiseSettings small_nlm3d_settings() {
  cdn::DenoiseSettings s = element_defaults();
  s.mode = cdn::Mode::Nlm3d;
  s.nlm.search_radius = 3;
  s.nlm.temporal_radius = 2;
  s.nlm.patch_radius = 1;
  s.nlm.chunk_size = 4;
  s.sigma = 15;
  return s;
}

inline bool has_element(const char* name) {
  GstElementFactory* f = gst_element_factory_find(name);
  if (!f) return false;
  gst_object_unref(f);
  return true;
}

inline GstVideoInfo video_info(const std::string& format, int width, int height) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, gst_video_format_from_string(format.c_str()), width, height);
  GST_VIDEO_INFO_FPS_N(&info) = 30;
  GST_VIDEO_INFO_FPS_D(&info) = 1;
  return info;
}

inline std::string caps_string(const std::string& format, int width, int height, bool cuda = false) {
  return std::string("video/x-raw") + (cuda ? "(memory:CUDAMemory)" : "") + ",format=" + format +
         ",width=" + std::to_string(width) + ",height=" + std::to_string(height) + ",framerate=30/1";
}

// A mapped video frame seen as a cdn::FrameView (host memory).
class MappedView {
 public:
  MappedView(GstBuffer* buffer, const GstVideoInfo& info, GstMapFlags flags) {
    ok_ = gst_video_frame_map(&frame_, &info, buffer, flags);
    if (!ok_) return;
    cdn::parse_format(gst_video_format_to_string(GST_VIDEO_FRAME_FORMAT(&frame_)), &view_.format);
    view_.width = GST_VIDEO_FRAME_WIDTH(&frame_);
    view_.height = GST_VIDEO_FRAME_HEIGHT(&frame_);
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame_); ++p) {
      view_.data[p] = GST_VIDEO_FRAME_PLANE_DATA(&frame_, p);
      view_.pitch[p] = static_cast<std::size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame_, p));
    }
  }
  ~MappedView() {
    if (ok_) gst_video_frame_unmap(&frame_);
  }
  MappedView(const MappedView&) = delete;
  MappedView& operator=(const MappedView&) = delete;
  bool ok() const { return ok_; }
  const cdn::FrameView& view() const { return view_; }

 private:
  GstVideoFrame frame_{};
  bool ok_ = false;
  cdn::FrameView view_;
};

// A host frame owned by the test (tight pitch).
struct HostFrame {
  std::vector<std::vector<std::uint8_t>> planes;
  cdn::FrameView view;
  HostFrame(cdn::PixelFormat format, int width, int height) {
    view.format = format;
    view.width = width;
    view.height = height;
    const int n = cdn::format_info(format).planes;
    planes.resize(n);
    for (int p = 0; p < n; ++p) {
      view.pitch[p] = static_cast<std::size_t>(cdn::plane_row_bytes(format, width, p));
      planes[p].assign(view.pitch[p] * cdn::plane_height(format, height, p), 0);
      view.data[p] = planes[p].data();
    }
  }
};

// Fills a frame with a smooth pattern, an edge and a thin line, then AWGN.
inline void fill_noisy(const cdn::FrameView& view, std::uint64_t seed, double sigma = 18.0) {
  int c = 0;
  for (const cdn::PlaneView& pl : cdn::components(view)) {
    const int top = pl.max_value();
    for (int y = 0; y < pl.height; ++y)
      for (int x = 0; x < pl.width; ++x) {
        double v = 0.25 + 0.4 * x / std::max(1, pl.width) + 0.1 * c;
        if (x > pl.width / 2 && y > pl.height / 3) v += 0.2;  // an edge
        if (y == pl.height / 2) v = 0.9;                     // a thin line
        pl.set(x, y, std::min(top, static_cast<int>(v * top)));
      }
    ++c;
  }
  cdn::add_gaussian_noise(view, sigma, seed);
}

// A system-memory buffer of `info` with a noisy picture (AWGN of std `sigma`,
// 8-bit code values). padded: rows padded and a GstVideoMeta describing the
// strides (what pools with video meta hand out).
inline GstBuffer* make_frame(const GstVideoInfo& info_in, std::uint64_t seed, bool padded = false,
                             double sigma = 18.0) {
  GstVideoInfo info = info_in;
  if (padded) {
    GstVideoAlignment align;
    gst_video_alignment_reset(&align);
    align.padding_right = 24;
    align.padding_bottom = 2;
    gst_video_info_align(&info, &align);
  }
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  if (padded)
    gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                                   GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info),
                                   GST_VIDEO_INFO_N_PLANES(&info), info.offset, info.stride);
  MappedView m(buf, info, GST_MAP_WRITE);
  EXPECT_TRUE(m.ok());
  if (m.ok()) fill_noisy(m.view(), seed, sigma);
  return buf;
}

// Differing samples of two host frames (over components), and the largest difference.
struct Diff {
  long long count = 0;
  int max_abs = 0;
};
inline Diff compare(const cdn::FrameView& a, const cdn::FrameView& b) {
  Diff d;
  const auto ca = cdn::components(a), cb = cdn::components(b);
  for (std::size_t c = 0; c < ca.size() && c < cb.size(); ++c)
    for (int y = 0; y < ca[c].height; ++y)
      for (int x = 0; x < ca[c].width; ++x) {
        const int e = std::abs(ca[c].get(x, y) - cb[c].get(x, y));
        if (e) {
          ++d.count;
          d.max_abs = std::max(d.max_abs, e);
        }
      }
  return d;
}

// The kernels/ CPU result for `in` (a host frame).
inline std::unique_ptr<HostFrame> cpu_reference(const cdn::FrameView& in, const cdn::DenoiseSettings& s) {
  auto out = std::make_unique<HostFrame>(in.format, in.width, in.height);
  cdn::StreamDenoiser::create(cdn::Backend::Cpu, s, in.format, in.width, in.height)->process(in, out->view);
  return out;
}

// Pushes `in` into the harness, pulls the output and checks it equals the CPU
// reference for the same frame and settings.
inline void expect_denoised(GstHarness* hs, const GstVideoInfo& info, GstBuffer* in, const cdn::DenoiseSettings& s) {
  std::unique_ptr<HostFrame> ref;
  {
    MappedView m(in, info, GST_MAP_READ);
    ASSERT_TRUE(m.ok());
    ref = cpu_reference(m.view(), s);
  }
  ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(hs);
  ASSERT_NE(out, nullptr);
  {
    MappedView m(out, info, GST_MAP_READ);
    ASSERT_TRUE(m.ok());
    const Diff d = compare(ref->view, m.view());
    EXPECT_EQ(d.count, 0) << "max |diff| " << d.max_abs << " for " << cdn::format_name(ref->view.format) << " "
                          << info.width << "x" << info.height;
  }
  gst_buffer_unref(out);
}

// The element's read-only estimated-sigma property (per component, 8-bit code values).
inline std::vector<double> estimated_sigma(GstElement* element) {
  GValue v = G_VALUE_INIT;
  g_value_init(&v, GST_TYPE_ARRAY);
  g_object_get_property(G_OBJECT(element), "estimated-sigma", &v);
  std::vector<double> out;
  for (guint i = 0; i < gst_value_array_get_size(&v); ++i)
    out.push_back(g_value_get_double(gst_value_array_get_value(&v, i)));
  g_value_unset(&v);
  return out;
}

// Samples of two host frames further apart than `tolerance`, out of `total`.
struct Closeness {
  long long total = 0, over = 0;
  int max_abs = 0;
  double fraction_within() const { return total ? 1.0 - double(over) / double(total) : 1.0; }
};
inline Closeness closeness(const cdn::FrameView& a, const cdn::FrameView& b, int tolerance) {
  Closeness c;
  const auto ca = cdn::components(a), cb = cdn::components(b);
  for (std::size_t k = 0; k < ca.size() && k < cb.size(); ++k)
    for (int y = 0; y < ca[k].height; ++y)
      for (int x = 0; x < ca[k].width; ++x) {
        const int e = std::abs(ca[k].get(x, y) - cb[k].get(x, y));
        ++c.total;
        if (e > tolerance) ++c.over;
        c.max_abs = std::max(c.max_abs, e);
      }
  return c;
}

// The kernels/ CPU result for a stream of host frames (all one format and
// size): cdn::StreamDenoiser fed frame by frame, then drained (stream_pump.h).
inline std::vector<std::unique_ptr<HostFrame>> stream_reference(const std::vector<cdn::FrameView>& in,
                                                                 const cdn::DenoiseSettings& s) {
  std::vector<std::unique_ptr<HostFrame>> out;
  if (in.empty()) return out;
  auto sd = cdn::StreamDenoiser::create(cdn::Backend::Cpu, s, in[0].format, in[0].width, in[0].height);
  cdn::FunctionSink sink(
      [&] {
        out.push_back(std::make_unique<HostFrame>(in[0].format, in[0].width, in[0].height));
        return out.back()->view;
      },
      [] { return true; });
  for (const cdn::FrameView& v : in) cdn::feed(*sd, v, sink);
  cdn::drain(*sd, sink);
  return out;
}

// Resident set size of this process in bytes.
inline long long rss_bytes() {
  long long pages_total = 0, pages_resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return -1;
  if (std::fscanf(f, "%lld %lld", &pages_total, &pages_resident) != 2) pages_resident = -1;
  std::fclose(f);
  return pages_resident * 4096;
}

}  // namespace cdn_test
