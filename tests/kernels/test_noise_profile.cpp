// test_noise_profile.cpp: the noise profile file (noise_profile.h): a model
// written and read back, the file form (written under its name only when
// complete), and every malformed profile refused with a message naming what is
// wrong.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "cudadenoise/error.h"
#include "cudadenoise/noise_profile.h"

namespace cdn {
namespace {

NoiseProfile sample_profile() {
  NoiseProfile p;
  NoiseModel y;
  y.a = 0.5;
  y.b = 4.0;
  y.levels = {{20.0, 14.0, 100}, {120.0, 64.0, 100}, {230.0, 119.0, 100}};
  y.usable = true;
  NoiseModel c;
  c.a = 0;
  c.b = 9;
  c.usable = true;
  p.planes = {y, c, c};
  return p;
}

TEST(NoiseProfile, RoundTrip) {
  const NoiseProfile p = sample_profile();
  const NoiseProfile q = noise_profile_from_json(noise_profile_to_json(p));
  ASSERT_EQ(q.planes.size(), 3u);
  EXPECT_DOUBLE_EQ(q.planes[0].a, 0.5);
  EXPECT_DOUBLE_EQ(q.planes[0].b, 4.0);
  EXPECT_DOUBLE_EQ(q.planes[2].b, 9.0);
  for (double x : {0.0, 20.0, 70.0, 200.0, 255.0}) {
    EXPECT_NEAR(q.planes[0].sigma_curve(x), p.planes[0].sigma_curve(x), 1e-9) << x;
    EXPECT_NEAR(q.planes[0].sigma_affine(x), p.planes[0].sigma_affine(x), 1e-12) << x;
  }
  EXPECT_TRUE(q.planes[1].levels.empty());
}

TEST(NoiseProfile, FileIsWrittenWholeAndReadBack) {
  const std::string path = ::testing::TempDir() + "cdn-noise-profile.json";
  save_noise_profile(sample_profile(), path);
  EXPECT_FALSE(std::ifstream(path + ".tmp").good()) << "the temporary stays behind";
  const NoiseProfile q = load_noise_profile(path);
  EXPECT_EQ(q.planes.size(), 3u);
  std::remove(path.c_str());
  try {
    load_noise_profile(path);
    FAIL() << "a missing file was read";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(NoiseProfile, MalformedProfilesAreRefusedSayingWhy) {
  const std::string head = R"({"format": "cudadenoise-noise-profile", "version": 1, "planes": )";
  const struct {
    std::string text, says;
  } cases[] = {
      {"not json", "not JSON"},
      {R"({"format": "other", "version": 1, "planes": []})", "format"},
      {R"({"format": "cudadenoise-noise-profile", "version": 2, "planes": [{"a": 0, "b": 1}]})", "version 2"},
      {head + "[]}", "planes"},
      {head + R"([{"a": 0.5}]})", "plane 0 needs"},
      {head + R"([{"a": -1, "b": 4}]})", "negative"},
      {head + R"([{"a": 0, "b": 0}]})", "not positive"},
      {head + R"([{"a": "x", "b": 4}]})", "plane 0 a is not a number"},
      {head + R"([{"a": 0, "b": 4}, {"a": 0, "b": 4, "curve": [[10, 2], [5, 2]]}]})", "plane 1 curve: x must increase"},
      {head + R"([{"a": 0, "b": 4, "curve": [[10, 0]]}]})", "sigma must be positive"},
      {head + R"([{"a": 0, "b": 4, "curve": [[10]]}]})", "[x, sigma]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      noise_profile_from_json(c.text);
      ADD_FAILURE() << "accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace cdn
