// bm3d_family_cases.h: the cases of the BM3D / V-BM3D byte-identity tests
// (test_bm3d_golden.cpp on the CPU references, test_gpu_bm3d_golden.cpp on the
// CUDA kernels): every BM3D profile, phase count, 8/10/16-bit format and
// per-component sigma (0 included), the V-BM3D profiles, aggregations, causal
// window and phase counts, on synthetic inputs built from integers only (the
// same bytes on every machine), and a 64-bit FNV-1a hash of what comes out.
// The hashes pin the outputs of the code as it was before BM3D and V-BM3D came
// to share their code (issue 34, item 5): a refactor must not change a byte.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/settings.h"
#include "cudadenoise/vbm3d_params.h"

namespace cdn::test {

// FNV-1a, 64 bits.
struct Fnv64 {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void add(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  }
  void add_floats(const std::vector<float>& v) { add(v.data(), v.size() * sizeof(float)); }
};

// The bytes of every memory plane of a frame, row by row (padding left out).
inline void hash_frame(Fnv64& h, const FrameView& v) {
  for (int p = 0; p < format_info(v.format).planes; ++p) {
    const auto* base = static_cast<const std::uint8_t*>(v.data[p]);
    for (int y = 0; y < plane_height(v.format, v.height, p); ++y)
      h.add(base + y * v.pitch[p], plane_row_bytes(v.format, v.width, p));
  }
}

// Frame `f` of a synthetic clip: per component a texture of stripes, a
// checkerboard and a ramp that moves by f samples along x, plus noise of about
// `noise8` 8-bit code values (the sum of four uniform integers, splitmix64),
// scaled to the component's depth and clamped.
inline HostFrame synthetic_frame(PixelFormat format, int w, int h, int f, int noise8, std::uint64_t seed) {
  HostFrame frame(format, w, h);
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(f) * 0xD1B54A32D192ED03ull;
  auto next = [&s] {
    s += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const std::vector<PlaneView> comps = components(frame.view());
  for (std::size_t c = 0; c < comps.size(); ++c) {
    const PlaneView& p = comps[c];
    const int unit = 1 << (p.bit_depth - 8);
    for (int y = 0; y < p.height; ++y)
      for (int x = 0; x < p.width; ++x) {
        const int u = x + f, tri = (u % 24 < 12 ? u % 24 : 24 - u % 24) * 9;  // 0 .. 108
        const int checker = ((u / 6 + y / 5) % 2) * 50;
        const int ramp = (2 * y + 3 * static_cast<int>(c)) % 60;
        int noise = 0;
        for (int k = 0; k < 4; ++k) noise += static_cast<int>(next() % (2 * noise8 + 1)) - noise8;
        const int v8 = 30 + tri + checker + ramp;  // 30 .. 247
        const long long v = static_cast<long long>(v8) * unit + static_cast<long long>(noise) * unit / 2 +
                            static_cast<long long>(next() % static_cast<std::uint64_t>(unit));
        p.set(x, y, static_cast<int>(v < 0 ? 0 : (v > p.max_value() ? p.max_value() : v)));
      }
  }
  return frame;
}

struct Bm3dCase {
  std::string name;
  PixelFormat format;
  int width, height;
  Bm3dSettings params;
  std::vector<double> sigma;  // per component, code values of its depth
};

inline std::vector<Bm3dCase> bm3d_cases() {
  std::vector<Bm3dCase> cases;
  const Bm3dProfile profiles[] = {Bm3dProfile::Paper, Bm3dProfile::Reference, Bm3dProfile::Fast,
                                  Bm3dProfile::Balanced, Bm3dProfile::Quick, Bm3dProfile::Rapid,
                                  Bm3dProfile::Draft};
  for (Bm3dProfile profile : profiles) {
    const std::string pn = bm3d_profile_name(profile);
    Bm3dSettings p;
    p.profile = profile;
    cases.push_back({pn + " GRAY8 s25", PixelFormat::GRAY8, 61, 47, p, {25}});
    cases.push_back({pn + " I420 s18/9", PixelFormat::I420, 62, 46, p, {18, 9, 12}});
    cases.push_back({pn + " P010 s80/40", PixelFormat::P010_10LE, 50, 38, p, {80, 40, 40}});
    Bm3dSettings one = p;
    one.phases = 1;
    cases.push_back({pn + " GRAY16 s3000 phases 1", PixelFormat::GRAY16_LE, 45, 41, one, {3000}});
    Bm3dSettings odd = p;
    odd.step = 5;
    odd.window = 21;
    odd.group1 = 32;
    odd.group2 = 8;
    cases.push_back({pn + " Y444 s30/0/14 step 5 window 21 groups 32/8", PixelFormat::Y444, 37, 29, odd, {30, 0, 14}});
  }
  Bm3dSettings p;
  cases.push_back({"paper NV12 s40 groups 8/16", PixelFormat::NV12, 54, 40, [] {
                     Bm3dSettings q;
                     q.group1 = 8;
                     q.group2 = 16;
                     return q;
                   }(), {40, 40, 40}});
  cases.push_back({"paper P016 s0/5000/0 phases 2", PixelFormat::P016_LE, 34, 30, p, {0, 5000, 0}});
  cases.push_back({"paper GRAY8 tiny 5x3 s20", PixelFormat::GRAY8, 5, 3, p, {20}});
  return cases;
}

struct Vbm3dCase {
  std::string name;
  PixelFormat format;
  int width, height;
  int frames, out_begin, out_end;
  Vbm3dParams params;
  std::vector<double> sigma;
};

inline std::vector<Vbm3dCase> vbm3d_cases() {
  std::vector<Vbm3dCase> cases;
  struct Named {
    const char* name;
    Vbm3dParams p;
  };
  const Named profiles[] = {{"quality", vbm3d_quality_profile()},
                            {"fast", vbm3d_fast_profile()},
                            {"paper", vbm3d_paper_profile()},
                            {"wide", vbm3d_wide_profile()}};
  for (const Named& n : profiles) {
    const std::string pn = n.name;
    cases.push_back({pn + " GRAY8 s25", PixelFormat::GRAY8, 45, 37, 5, 1, 4, n.p, {25}});
    cases.push_back({pn + " I420 s20/10", PixelFormat::I420, 46, 34, 4, 0, 4, n.p, {20, 10, 10}});
    for (Vbm3dAggregation agg : {Vbm3dAggregation::Frame, Vbm3dAggregation::Reference, Vbm3dAggregation::Group}) {
      Vbm3dParams p = n.p;
      p.aggregation = agg;
      const char* an = agg == Vbm3dAggregation::Frame ? "frame" : agg == Vbm3dAggregation::Reference ? "reference"
                                                                                                    : "group";
      cases.push_back({pn + " P010 s60/30 aggregation " + an, PixelFormat::P010_10LE, 38, 30, 5, 2, 3, p,
                       {60, 30, 30}});
    }
    Vbm3dParams causal = n.p;
    causal.causal = true;
    causal.aggregation = Vbm3dAggregation::Frame;
    cases.push_back({pn + " Y444 s22/0/11 causal", PixelFormat::Y444, 33, 27, 4, 2, 4, causal, {22, 0, 11}});
    Vbm3dParams one = n.p;
    one.phases = 1;
    one.motion = false;
    cases.push_back({pn + " GRAY16 s4000 phases 1 no motion", PixelFormat::GRAY16_LE, 40, 31, 3, 0, 3, one, {4000}});
  }
  cases.push_back({"quality NV12 s35 one frame", PixelFormat::NV12, 42, 30, 1, 0, 1, vbm3d_quality_profile(),
                   {35, 35, 35}});
  return cases;
}

}  // namespace cdn::test
