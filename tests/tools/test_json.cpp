// test_json.cpp: one-line JSON output (tools/common/json.h).
#include <gtest/gtest.h>

#include <limits>

#include "json.h"

namespace {

TEST(Json, ObjectsKeepOrderAndEscape) {
  cdn::tools::JsonLine j;
  j.add("input", "a \"b\"\\c\n").add("width", 512).add("ms", 1.5).add("ok", true).add("big", 1LL << 40);
  EXPECT_EQ(j.str(), R"({"input":"a \"b\"\\c\n","width":512,"ms":1.5,"ok":true,"big":1099511627776})");
}

TEST(Json, NonFiniteNumbersAreNull) {
  cdn::tools::JsonLine j;
  j.add("psnr", std::numeric_limits<double>::infinity()).add("ssim", std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(j.str(), R"({"psnr":null,"ssim":null})");
  EXPECT_EQ(cdn::tools::json_escape(std::string("\x01", 1)), "\"\\u0001\"");
}

}  // namespace
