// noise_profile.cpp: the noise profile file (noise_profile.h), through
// nlohmann-json (Debian's nlohmann-json3-dev).
#include "cudadenoise/noise_profile.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cudadenoise/error.h"

namespace cdn {

namespace {

constexpr const char* kFormat = "cudadenoise-noise-profile";
constexpr int kVersion = 1;

using Json = nlohmann::ordered_json;

double finite_number(const Json& j, const std::string& what) {
  if (!j.is_number()) throw InvalidArgument("noise profile: " + what + " is not a number");
  const double v = j.get<double>();
  if (!std::isfinite(v)) throw InvalidArgument("noise profile: " + what + " is not finite");
  return v;
}

}  // namespace

std::string noise_profile_to_json(const NoiseProfile& profile) {
  Json planes = Json::array();
  for (const NoiseModel& m : profile.planes) {
    Json curve = Json::array();
    for (const NoiseModelLevel& l : m.levels)
      if (l.usable()) curve.push_back({l.mean, std::sqrt(l.variance)});
    planes.push_back({{"a", m.a}, {"b", m.b}, {"curve", curve}});
  }
  const Json j = {{"format", kFormat}, {"version", kVersion}, {"planes", planes}};
  return j.dump(1) + "\n";
}

NoiseProfile noise_profile_from_json(const std::string& text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InvalidArgument(std::string("noise profile: not JSON (") + e.what() + ")");
  }
  if (!j.is_object() || j.value("format", std::string()) != kFormat)
    throw InvalidArgument(std::string("noise profile: no \"format\": \"") + kFormat + "\"");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kVersion)
    throw InvalidArgument("noise profile: version " + (j.contains("version") ? j["version"].dump() : "missing") +
                          ", this build reads version " + std::to_string(kVersion));
  if (!j.contains("planes") || !j["planes"].is_array() || j["planes"].empty() || j["planes"].size() > 4)
    throw InvalidArgument("noise profile: \"planes\" must be a list of 1 to 4 planes");
  NoiseProfile p;
  for (std::size_t k = 0; k < j["planes"].size(); ++k) {
    const Json& jp = j["planes"][k];
    const std::string where = "plane " + std::to_string(k);
    if (!jp.is_object() || !jp.contains("a") || !jp.contains("b"))
      throw InvalidArgument("noise profile: " + where + " needs \"a\" and \"b\"");
    NoiseModel m;
    m.a = finite_number(jp["a"], where + " a");
    m.b = finite_number(jp["b"], where + " b");
    if (m.a < 0) throw InvalidArgument("noise profile: " + where + " a = " + jp["a"].dump() + " is negative");
    if (m.a * 255 + m.b <= 0)
      throw InvalidArgument("noise profile: " + where + ": a x + b is not positive anywhere in 0..255");
    m.levels.clear();
    if (jp.contains("curve")) {
      if (!jp["curve"].is_array()) throw InvalidArgument("noise profile: " + where + " curve is not a list");
      double last = -1;
      for (const Json& point : jp["curve"]) {
        if (!point.is_array() || point.size() != 2)
          throw InvalidArgument("noise profile: " + where + " curve: each point is [x, sigma]");
        const double x = finite_number(point[0], where + " curve x");
        const double s = finite_number(point[1], where + " curve sigma");
        if (x <= last || x < 0 || x > 255)
          throw InvalidArgument("noise profile: " + where + " curve: x must increase within 0..255");
        if (s <= 0) throw InvalidArgument("noise profile: " + where + " curve: sigma must be positive");
        m.levels.push_back({x, s * s, 0});
        last = x;
      }
    }
    m.usable = true;
    p.planes.push_back(m);
  }
  return p;
}

void save_noise_profile(const NoiseProfile& profile, const std::string& path) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << noise_profile_to_json(profile);
    out.flush();
    if (!out) throw InvalidArgument("noise profile: cannot write " + temp);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw InvalidArgument("noise profile: cannot rename " + temp + " to " + path);
  }
}

NoiseProfile load_noise_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InvalidArgument("noise profile: cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  try {
    return noise_profile_from_json(text.str());
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(path + ": " + e.what());
  }
}

}  // namespace cdn
