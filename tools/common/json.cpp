// json.cpp: one-line JSON objects (json.h).
#include "json.h"

#include <cmath>
#include <cstdio>

namespace cdn::tools {

std::string json_escape(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

JsonLine& JsonLine::raw(const std::string& key, const std::string& json_value) {
  if (!body_.empty()) body_ += ",";
  body_ += json_escape(key) + ":" + json_value;
  return *this;
}

JsonLine& JsonLine::add(const std::string& key, const std::string& value) { return raw(key, json_escape(value)); }
JsonLine& JsonLine::add(const std::string& key, const char* value) { return raw(key, json_escape(value)); }
JsonLine& JsonLine::add(const std::string& key, int value) { return raw(key, std::to_string(value)); }
JsonLine& JsonLine::add(const std::string& key, long long value) { return raw(key, std::to_string(value)); }
JsonLine& JsonLine::add(const std::string& key, bool value) { return raw(key, value ? "true" : "false"); }
JsonLine& JsonLine::add_null(const std::string& key) { return raw(key, "null"); }

JsonLine& JsonLine::add(const std::string& key, double value) {
  if (!std::isfinite(value)) return add_null(key);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", value);  // the C locale: '.' as decimal point
  return raw(key, buf);
}

}  // namespace cdn::tools
