// json.h: building one-line JSON objects for the tools' machine-readable output.
//
// Keys keep the order they were added in. Strings are escaped; doubles that are
// not finite (an infinite PSNR, a NaN SSIM) are written as null, since JSON has
// no inf or NaN.
#pragma once

#include <string>

namespace cdn::tools {

class JsonLine {
 public:
  JsonLine& add(const std::string& key, const std::string& value);
  JsonLine& add(const std::string& key, const char* value);
  JsonLine& add(const std::string& key, double value);
  JsonLine& add(const std::string& key, int value);
  JsonLine& add(const std::string& key, long long value);
  JsonLine& add(const std::string& key, bool value);
  JsonLine& add_null(const std::string& key);
  // {"key":value,...} without a newline.
  std::string str() const { return "{" + body_ + "}"; }

 private:
  JsonLine& raw(const std::string& key, const std::string& json_value);
  std::string body_;
};

std::string json_escape(const std::string& s);  // with the quotes

}  // namespace cdn::tools
