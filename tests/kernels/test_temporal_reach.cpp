// test_temporal_reach.cpp: the public reach of a mode's window
// (cudadenoise/temporal_reach.h), which the transcode tool's --range plans
// with: nothing for per-frame modes, both sides for a centred window, only
// before for a causal one, window=auto following the source.
#include <gtest/gtest.h>

#include "cudadenoise/error.h"
#include "cudadenoise/settings.h"
#include "cudadenoise/temporal_reach.h"
#include "cudadenoise/vbm3d_params.h"

namespace cdn {
namespace {

TEST(TemporalReach, PerFrameModesReadNoOtherFrame) {
  for (Mode m : all_modes()) {
    if (is_temporal(m)) continue;
    SCOPED_TRACE(mode_name(m));
    DenoiseSettings s;
    s.mode = m;
    for (bool live : {false, true}) {
      const TemporalReach r = temporal_reach(s, live);
      EXPECT_EQ(r.before, 0);
      EXPECT_EQ(r.after, 0);
    }
  }
}

TEST(TemporalReach, Nlm3dCentredCausalAndCube) {
  DenoiseSettings s;
  s.mode = Mode::Nlm3d;
  s.nlm.temporal_radius = 3;
  // Centred (auto on a file): the radius either side; a live source makes auto causal.
  TemporalReach r = temporal_reach(s, false);
  EXPECT_EQ(r.before, 3);
  EXPECT_EQ(r.after, 3);
  r = temporal_reach(s, true);
  EXPECT_EQ(r.before, 3);
  EXPECT_EQ(r.after, 0);
  s.window = TemporalWindow::Causal;
  r = temporal_reach(s, false);
  EXPECT_EQ(r.before, 3);
  EXPECT_EQ(r.after, 0);
  s.window = TemporalWindow::Centred;
  r = temporal_reach(s, true);
  EXPECT_EQ(r.before, 3);
  EXPECT_EQ(r.after, 3);
  // A cube spans patch-radius frames more each side, and has no causal window:
  // auto stays centred even for a live source.
  s.window = TemporalWindow::Auto;
  s.nlm.patch_shape = NlmPatchShape::Cube;
  s.nlm.patch_radius = 1;
  s.nlm.motion_search = false;
  s.nlm.frame_confidence = 0;
  r = temporal_reach(s, true);
  EXPECT_EQ(r.before, 4);
  EXPECT_EQ(r.after, 4);
}

TEST(TemporalReach, Vbm3dFollowsItsParams) {
  DenoiseSettings s;
  s.mode = Mode::Vbm3d;
  s.vbm3d.radius = 2;
  s.vbm3d.phases = 1;
  s.vbm3d.aggregation = static_cast<int>(Vbm3dAggregation::Frame);
  TemporalReach r = temporal_reach(s, false);
  EXPECT_EQ(r.before, 2);
  EXPECT_EQ(r.after, 2);
  r = temporal_reach(s, true);
  EXPECT_EQ(r.before, 2);
  EXPECT_EQ(r.after, 0);
  // The defaults: whatever the profile gives (vbm3d_params), causal with twice the radius.
  DenoiseSettings d;
  d.mode = Mode::Vbm3d;
  r = temporal_reach(d, false);
  EXPECT_EQ(r.before, vbm3d_params(d.vbm3d, false).reach());
  EXPECT_EQ(r.after, r.before);
  EXPECT_GT(r.before, 0);
  r = temporal_reach(d, true);
  EXPECT_EQ(r.before, vbm3d_params(d.vbm3d, true).reach());
  EXPECT_EQ(r.after, 0);
}

}  // namespace
}  // namespace cdn
