// test_bm3d_golden.cpp: the BM3D and V-BM3D CPU references give the bytes (and
// the float estimates, bit for bit) they gave before the two came to share their
// code (issue 34, item 5). The hashes below were recorded by this test on the
// code before that refactor (bm3d_family_cases.h: the cases); a change to the
// references' arithmetic or order of operations changes them. Run with
// CDN_GOLDEN_PRINT=1 to print the table.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bm3d/bm3d_reference.h"
#include "bm3d_family_cases.h"
#include "cudadenoise/host_frame.h"
#include "vbm3d/vbm3d_reference.h"

namespace cdn::test {
namespace {

struct Golden {
  std::uint64_t bytes, floats;  // the output frame(s); the basic and final estimates
};

// Recorded on the code before the refactor (commit named in the test's history).
const std::map<std::string, Golden>& golden() {
  static const std::map<std::string, Golden> g = {
#include "bm3d_golden_hashes.inc"
  };
  return g;
}

void hash_planes(Fnv64& h, const std::vector<bm3d::FloatPlane>& planes) {
  for (const bm3d::FloatPlane& p : planes) h.add_floats(p.v);
}

void check(const std::string& name, const Golden& got) {
  if (std::getenv("CDN_GOLDEN_PRINT"))
    std::printf("{\"%s\", {0x%016llxull, 0x%016llxull}},\n", name.c_str(), static_cast<unsigned long long>(got.bytes),
                static_cast<unsigned long long>(got.floats));
  const auto it = golden().find(name);
  ASSERT_NE(it, golden().end()) << name << ": no recorded hash";
  EXPECT_EQ(got.bytes, it->second.bytes) << name << ": the output bytes changed";
  EXPECT_EQ(got.floats, it->second.floats) << name << ": the float estimates changed";
}

TEST(Bm3dGolden, ReferenceOutputsAreTheRecordedBytes) {
  for (const Bm3dCase& k : bm3d_cases()) {
    const HostFrame in = synthetic_frame(k.format, k.width, k.height, 0, 12, 7);
    HostFrame out(k.format, k.width, k.height);
    const std::vector<PlaneView> ci = components(in.view()), co = components(out.view());
    const int filtered = static_cast<int>(ci.size());
    bm3d::bm3d_reference(ci, co, filtered, k.params, k.sigma, 2);
    Golden g;
    Fnv64 bytes, floats;
    hash_frame(bytes, out.view());
    const bm3d::Estimates e = bm3d::bm3d_estimates(ci, k.params, k.sigma, 3);
    hash_planes(floats, e.basic);
    hash_planes(floats, e.final);
    g.bytes = bytes.h;
    g.floats = floats.h;
    check("bm3d " + k.name, g);
  }
}

TEST(Bm3dGolden, Vbm3dReferenceOutputsAreTheRecordedBytes) {
  for (const Vbm3dCase& k : vbm3d_cases()) {
    std::vector<HostFrame> frames, outs;
    std::vector<FrameView> window, out_views;
    std::vector<std::vector<PlaneView>> comps;
    for (int f = 0; f < k.frames; ++f) {
      frames.push_back(synthetic_frame(k.format, k.width, k.height, f, 12, 11));
      window.push_back(frames.back().view());
      comps.push_back(components(window.back()));
    }
    for (int f = k.out_begin; f < k.out_end; ++f) {
      outs.emplace_back(k.format, k.width, k.height);
      out_views.push_back(outs.back().view());
    }
    const int filtered = static_cast<int>(comps[0].size());
    vbm3d_reference(window, k.out_begin, k.out_end, out_views, filtered, k.params, k.sigma, 2);
    Golden g;
    Fnv64 bytes, floats;
    for (const FrameView& v : out_views) hash_frame(bytes, v);
    const vbm3d::WindowEstimates e = vbm3d::vbm3d_estimates(comps, k.out_begin, k.out_end, k.params, k.sigma, 3);
    for (const auto& f : e.basic) hash_planes(floats, f);
    for (const auto& f : e.final) hash_planes(floats, f);
    g.bytes = bytes.h;
    g.floats = floats.h;
    check("vbm3d " + k.name, g);
  }
}

}  // namespace
}  // namespace cdn::test
