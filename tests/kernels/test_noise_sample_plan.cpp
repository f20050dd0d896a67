// test_noise_sample_plan.cpp: the noise tracker's copy plan (kernels/
// noise_sample_plan.h), run with memcpy on host frames: the staged planes give
// the estimates of the frame itself, bit for bit, for every format, odd sizes,
// small planes (sampled densely), planes too small to sample, and several
// phases; the copies stay inside the frame's planes and the staging buffer and
// never overlap. The device path runs the same plan with cudaMemcpy2DAsync
// (test_gpu_noise_tracker.cpp checks it on the GPU host).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "noise/noise_sample_plan.h"
#include "noise_test_support.h"
#include "cudadenoise/noise_tracker.h"

namespace cdn {
namespace {

// Frame t of a pan over camera.png, component c with noise sigma[c].
HostFrame noisy_frame(PixelFormat f, int w, int h, int t) {
  static const test::LumaSource src = test::photo_luma("camera.png");
  const double sigma[] = {10, 4, 25};
  HostFrame frame(f, w, h);
  const auto comps = components(frame.view());
  for (std::size_t c = 0; c < comps.size(); ++c)
    test::render(test::crop(src, 3 * t + 11 * static_cast<int>(c), 2 * t, comps[c].width, comps[c].height), sigma[c],
                 77 * t + c + 1, comps[c]);
  return frame;
}

// What the tracker samples in frame `phase` (noise_tracker.cpp, sampling()).
std::vector<PatchSampling> tracker_sampling(const FrameView& f, std::uint64_t phase) {
  const NoiseTrackerSettings ts;
  const auto comps = components(f);
  std::vector<PatchSampling> out;
  for (const PlaneView& p : comps)
    out.push_back(patch_sampling(p.width, p.height, component_budget(ts.budget, comps[0], p), phase));
  return out;
}

// The plan run with memcpy, checking every copy's bounds; staging bytes no
// copy writes keep the value 0xA5.
std::vector<unsigned char> run_plan(const FrameView& f, const SampleCopyPlan& plan) {
  std::vector<unsigned char> staging(plan.bytes, 0xA5);
  std::vector<std::pair<std::size_t, std::size_t>> written;  // [begin, end) of each copied row
  for (const SampleCopy& k : plan.copies) {
    EXPECT_GT(k.rows, 0);
    EXPECT_LE(k.row_bytes, k.source_pitch);
    EXPECT_LE(k.row_bytes, k.staged_pitch);
    const std::size_t plane_bytes = f.pitch[k.plane] * plane_height(f.format, f.height, k.plane);
    const std::size_t source_end = k.source_offset + (k.rows - 1) * k.source_pitch + k.row_bytes;
    EXPECT_LE(source_end, plane_bytes) << "plane " << k.plane << " read past its last row";
    const std::size_t staged_end = k.staged_offset + (k.rows - 1) * k.staged_pitch + k.row_bytes;
    EXPECT_LE(staged_end, plan.bytes) << "plane " << k.plane << " written past the staging buffer";
    if (source_end > plane_bytes || staged_end > plan.bytes) continue;
    for (int r = 0; r < k.rows; ++r) {
      const std::size_t to = k.staged_offset + r * k.staged_pitch;
      std::memcpy(staging.data() + to, static_cast<const unsigned char*>(f.data[k.plane]) + k.source_offset +
                                           r * k.source_pitch, k.row_bytes);
      written.push_back({to, to + k.row_bytes});
    }
  }
  std::sort(written.begin(), written.end());
  for (std::size_t i = 1; i < written.size(); ++i)
    EXPECT_LE(written[i - 1].second, written[i].first) << "two copied rows overlap in the staging buffer";
  return staging;
}

void expect_same(const NoiseLevel& staged, const NoiseLevel& frame, const std::string& what) {
  EXPECT_EQ(staged.usable, frame.usable) << what;
  EXPECT_EQ(staged.candidates, frame.candidates) << what;
  EXPECT_EQ(staged.structured, frame.structured) << what;
  EXPECT_EQ(staged.selected, frame.selected) << what;
  EXPECT_EQ(staged.iterations, frame.iterations) << what;
  EXPECT_EQ(staged.sigma, frame.sigma) << what;  // bit for bit: the same samples in the same order
}

void check(PixelFormat f, int w, int h) {
  const std::string name = std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h);
  SCOPED_TRACE(name);
  for (int t = 0; t < 3; ++t) {
    const HostFrame frame = noisy_frame(f, w, h, t);
    const std::vector<PatchSampling> sampling = tracker_sampling(frame.view(), t);
    const SampleCopyPlan plan = plan_sample_copy(frame.view(), sampling);
    std::vector<unsigned char> staging = run_plan(frame.view(), plan);
    const StagedComponents st = staged_components(frame.view(), sampling, plan, staging.data());
    const auto comps = components(frame.view());
    ASSERT_EQ(st.planes.size(), comps.size());
    ASSERT_EQ(st.sampling.size(), comps.size());
    for (std::size_t c = 0; c < comps.size(); ++c) {
      const std::string what = name + " frame " + std::to_string(t) + " component " + std::to_string(c);
      EXPECT_EQ(st.planes[c].memory, MemoryKind::Host);
      EXPECT_EQ(st.planes[c].width, comps[c].width) << what;
      // As the tracker estimates: its covariance size, from all patches
      // (first frame) and from a tracked value (later frames).
      for (double start : {0.0, 9.0}) {
        NoiseLevelOptions o;
        o.max_selected = NoiseTrackerSettings{}.max_selected;
        o.start_sigma = start;
        NoiseLevelEstimator a, b;
        const NoiseLevel from_staged = a.estimate(st.planes[c], st.sampling[c], o);
        const NoiseLevel from_frame = b.estimate(comps[c], sampling[c], o);
        expect_same(from_staged, from_frame, what + " start " + std::to_string(start));
      }
    }
  }
}

TEST(NoiseSamplePlan, StagedSamplesGiveTheFramesEstimates) {
  const std::vector<std::pair<int, int>> sizes = {
      {333, 201},   // odd, sampled in bands
      {96, 64},     // sampled densely (chroma of 4:2:0 too)
      {35, 18},     // too narrow to be usable: the same "not usable"
      {41, 7},      // one band of rows
      {6, 40},      // narrower than a patch: nothing staged
      {1, 1},
      {1280, 720},  // bands further apart than 7 rows, columns skipped
  };
  for (PixelFormat f : all_formats())
    for (auto [w, h] : sizes) {
      if (f == PixelFormat::I420 && h % 2) continue;  // odd-height I420 is refused upstream (test_gpu_plugin)
      check(f, w, h);
    }
}

TEST(NoiseSamplePlan, BandsAreStackedAndOnlyTheirRowsAreCopied) {
  // 1080p NV12 at the tracker's budget: the luma in bands 7 rows high, a
  // fraction of the plane (docs/NOISE.md: 329 of 1080 rows at 1080p).
  const HostFrame frame(PixelFormat::NV12, 1920, 1080);
  const std::vector<PatchSampling> sampling = tracker_sampling(frame.view(), 4);
  const SampleCopyPlan plan = plan_sample_copy(frame.view(), sampling);
  ASSERT_EQ(plan.copies.size(), 2u) << "one copy per memory plane";
  const SampleCopy& y = plan.copies[0];
  EXPECT_EQ(y.plane, 0);
  EXPECT_EQ(y.rows, sampling[0].bands);
  EXPECT_EQ(y.source_offset, sampling[0].band_first * frame.view().pitch[0]);
  EXPECT_EQ(y.source_pitch, sampling[0].band_step * frame.view().pitch[0]);
  EXPECT_EQ(y.staged_pitch, 7 * frame.view().pitch[0]);
  EXPECT_EQ(y.row_bytes, 6 * frame.view().pitch[0] + 1920);
  EXPECT_LT(staged_rows(sampling[0]), 1080 / 2);
  EXPECT_EQ(plan.plane_offset[1], static_cast<std::size_t>(staged_rows(sampling[0])) * frame.view().pitch[0]);
}

TEST(NoiseSamplePlan, RejectsSamplingsThatDoNotFitTheFrame) {
  const HostFrame frame(PixelFormat::NV12, 96, 64);
  std::vector<PatchSampling> sampling = tracker_sampling(frame.view(), 0);
  sampling.pop_back();
  EXPECT_THROW(plan_sample_copy(frame.view(), sampling), InvalidArgument);
  sampling = tracker_sampling(frame.view(), 0);
  sampling[2].x_first += 1;  // U and V share NV12's second plane: one sampling
  EXPECT_THROW(plan_sample_copy(frame.view(), sampling), InvalidArgument);
}

}  // namespace
}  // namespace cdn
