// noise_model_report.cpp: the tools' text and JSON of a noise model (noise_model_report.h).
#include "noise_model_report.h"

#include <cmath>
#include <cstdio>

namespace cdn::tools {

namespace {

std::string slash_list(const std::vector<NoiseModel>& models, double NoiseModel::*field) {
  std::string out;
  char buf[32];
  for (const NoiseModel& m : models) {
    std::snprintf(buf, sizeof buf, "%.2f", m.*field);
    out += (out.empty() ? "" : "/") + std::string(buf);
  }
  return out;
}

}  // namespace

std::string noise_models_text(NoiseModelKind kind, const std::vector<NoiseModel>& models) {
  return std::string(noise_model_name(kind)) + ", a " + slash_list(models, &NoiseModel::a) + ", b " +
         slash_list(models, &NoiseModel::b);
}

Json noise_models_json(const std::vector<NoiseModel>& models) {
  Json planes = Json::array();
  for (const NoiseModel& m : models) {
    Json curve = Json::array();
    for (const NoiseModelLevel& l : m.levels)
      if (l.usable()) curve.push_back({l.mean, std::sqrt(l.variance)});
    planes.push_back({{"a", m.a}, {"b", m.b}, {"curve", curve}});
  }
  return planes;
}

const char* noise_model_source(const DenoiseSettings& s) {
  if (s.noise_profile) return "profile";
  return s.noise_a >= 0 ? "given" : "estimated";
}

}  // namespace cdn::tools
