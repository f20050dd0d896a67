// test_json.cpp: one-line JSON output (tools/common/json.h, over nlohmann-json):
// key order, escaping, non-finite numbers, bytes that are not UTF-8.
#include <gtest/gtest.h>

#include <limits>

#include "json.h"

namespace {

using cdn::tools::Json;
using cdn::tools::json_line;

TEST(Json, ObjectsKeepOrderAndEscape) {
  Json j;
  j["input"] = "a \"b\"\\c\n", j["width"] = 512, j["ms"] = 1.5, j["ok"] = true, j["big"] = 1LL << 40;
  j["planes"].push_back({{"psnr", 30.25}});
  EXPECT_EQ(json_line(j), R"({"input":"a \"b\"\\c\n","width":512,"ms":1.5,"ok":true,"big":1099511627776,)"
                          R"("planes":[{"psnr":30.25}]})");
  EXPECT_EQ(json_line(Json(std::string("\x01", 1))), "\"\\u0001\"");
}

TEST(Json, NonFiniteNumbersAreNull) {
  Json j;
  j["psnr"] = std::numeric_limits<double>::infinity(), j["ssim"] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(json_line(j), R"({"psnr":null,"ssim":null})");
}

TEST(Json, BytesThatAreNotUtf8AreReplacedNotThrown) {
  Json j;
  j["input"] = std::string("caf\xe9.png");  // Latin-1, as a file name may be
  EXPECT_EQ(json_line(j), "{\"input\":\"caf\xef\xbf\xbd.png\"}");  // U+FFFD
}

}  // namespace
