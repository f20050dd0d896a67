// test_named_sets.cpp: the research tools' named parameter sets
// (kernels/include/cudadenoise/named_sets.h): every row runs in this build and
// validates, names are unique within a mode, the papers' NLM-3D configuration
// is the row "paper" (nlm_paper_params() reads it), the earlier video
// settings keep the form they were measured in, and PI-PD's quality set is
// pipd_quality_params() and the preset 'isoline'.
#include <gtest/gtest.h>

#include <string>

#include "cudadenoise/error.h"
#include "cudadenoise/named_sets.h"

namespace cdn {
namespace {

TEST(NamedSets, EveryRowIsValidAndNamesAreUniqueWithinAMode) {
  ASSERT_FALSE(named_sets().empty());
  for (const NamedSet& n : named_sets()) {
    SCOPED_TRACE(std::string(n.mode) + " " + n.name);
    std::string why;
    EXPECT_TRUE(preset_available(n, &why)) << why;
    const DenoiseSettings s = named_set_settings(n);
    EXPECT_NO_THROW(validate(s));
    Mode m;
    ASSERT_TRUE(parse_mode(n.mode, &m));
    EXPECT_EQ(s.mode, m);
    EXPECT_NE(std::string(n.job), "");
    EXPECT_EQ(find_named_set(n.mode, n.name), &n);
    int same = 0;
    for (const NamedSet& o : named_sets()) same += std::string(o.mode) == n.mode && std::string(o.name) == n.name;
    EXPECT_EQ(same, 1);
  }
  EXPECT_EQ(find_named_set("nlm3d", "no-such-set"), nullptr);
  EXPECT_EQ(find_named_set("bm3d", "paper"), nullptr) << "names are per mode";
  try {
    named_set_settings("nlm3d", "no-such-set");
    ADD_FAILURE() << "an unknown name throws";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(named_set_choices("nlm3d")), std::string::npos) << e.what();
  }
}

// The papers' filter (Cuomo et al. 2014): 11^3 search cube, 3^3 similarity
// cubes, fixed windows, the papers' self weight and weights, beta 0.4.
TEST(NamedSets, PaperIsThePapersConfiguration) {
  const DenoiseSettings s = named_set_settings("nlm3d", "paper");
  const NlmSettings& p = s.nlm;
  EXPECT_EQ(p.search_radius, 5);
  EXPECT_EQ(p.temporal_radius, 5);
  EXPECT_EQ(p.search_radius_at(1), 5) << "the same window in every frame";
  EXPECT_EQ(p.patch_radius, 1);
  EXPECT_EQ(p.patch_shape, NlmPatchShape::Cube);
  EXPECT_FALSE(p.motion_search);
  EXPECT_FALSE(p.distance_offset);
  EXPECT_EQ(p.frame_confidence, 0);
  EXPECT_EQ(p.self_weight_floor, 0) << "the papers' rule";
  EXPECT_EQ(p.beta, 0.4);
  EXPECT_EQ(nlm_paper_params(), p);
  EXPECT_NE(p, NlmSettings{}) << "not the defaults";
}

TEST(NamedSets, VideoIsTheDefaultsAndTheOthersKeepTheirMeasuredForm) {
  EXPECT_EQ(named_set_settings("nlm3d", "video").nlm, NlmSettings{});
  const NlmSettings r3 = named_set_settings("nlm3d", "video-r3").nlm;
  EXPECT_EQ(r3.temporal_radius, 3);
  EXPECT_EQ(r3.frame_confidence, 0);
  const NlmSettings fast = named_set_settings("nlm3d", "fast").nlm;
  EXPECT_EQ(fast.search_radius, 2);
  EXPECT_EQ(fast.temporal_radius, 2);
  EXPECT_EQ(fast.frame_confidence, 0);
  EXPECT_TRUE(fast.motion_search);
  // fast-nomotion: fast with the windows not moved and frame confidence on.
  NlmSettings still = named_set_settings("nlm3d", "fast-nomotion").nlm;
  EXPECT_FALSE(still.motion_search);
  EXPECT_EQ(still.frame_confidence, 0.5);
  still.motion_search = fast.motion_search;
  still.frame_confidence = fast.frame_confidence;
  EXPECT_EQ(still, fast) << "nothing else differs from fast";
  // The defaults with one thing off, and on the causal window.
  EXPECT_EQ(named_set_settings("nlm3d", "rt0").nlm.temporal_radius, 0);
  EXPECT_FALSE(named_set_settings("nlm3d", "nomotion").nlm.motion_search);
  EXPECT_EQ(named_set_settings("nlm3d", "noconf").nlm.frame_confidence, 0);
  const DenoiseSettings causal = named_set_settings("nlm3d", "causal");
  EXPECT_EQ(causal.nlm, NlmSettings{});
  EXPECT_EQ(resolve_window(causal, false), TemporalWindow::Causal);
}

// PI-PD and hybrid: the paper's parameters are the defaults; quality is
// docs/PIPD.md's, pipd_quality_params(), and what the preset 'isoline' runs.
TEST(NamedSets, PipdSetsAndTheIsolinePreset) {
  for (const char* mode : {"pipd", "hybrid"}) {
    SCOPED_TRACE(mode);
    const PipdParams paper = named_set_settings(mode, "paper").pipd, defaults;
    EXPECT_EQ(paper.segment_length, 5);
    EXPECT_EQ(paper.max_length, 25);
    EXPECT_EQ(paper.tmax, 1.0);
    EXPECT_EQ(paper.t2max, 2.0);
    EXPECT_EQ(paper.thickness, 1);
    EXPECT_EQ(paper.direction_prefilter, 0) << "not in the paper";
    EXPECT_EQ(named_set_settings(mode, "prefilt").pipd.direction_prefilter, 1);
    const PipdParams q = named_set_settings(mode, "quality").pipd;
    EXPECT_EQ(q.direction_prefilter, 1);
    EXPECT_EQ(q.thickness, 3);
    EXPECT_EQ(q.t2max, 1.0);
    EXPECT_EQ(q.segment_length, defaults.segment_length);
    EXPECT_EQ(q.max_length, defaults.max_length);
    EXPECT_EQ(q.tmax, defaults.tmax);
  }
  const PipdParams q = pipd_quality_params();
  const Preset* isoline = find_preset("isoline");
  ASSERT_NE(isoline, nullptr);
  const DenoiseSettings preset = preset_settings(*isoline);
  const DenoiseSettings set = named_set_settings(isoline->mode, "quality");
  EXPECT_EQ(preset.mode, set.mode);
  for (const PipdParams& p : {preset.pipd, set.pipd}) {
    EXPECT_EQ(p.direction_prefilter, q.direction_prefilter);
    EXPECT_EQ(p.thickness, q.thickness);
    EXPECT_EQ(p.t2max, q.t2max);
    EXPECT_EQ(p.tmax, q.tmax);
    EXPECT_EQ(p.segment_length, q.segment_length);
    EXPECT_EQ(p.max_length, q.max_length);
  }
}

}  // namespace
}  // namespace cdn
