// named_sets.cpp: the named parameter sets of the research tools (named_sets.h).
// Why each set exists and what it measures: docs/NLM3D.md (no figures here).
#include "cudadenoise/named_sets.h"

#include "cudadenoise/error.h"

namespace cdn {

const std::vector<NamedSet>& named_sets() {
  static const std::vector<NamedSet> table = {
      // PI-PD and hybrid (docs/PIPD.md): the paper's parameters, the direction prefilter alone, and the
      // quality settings (also the preset 'isoline').
      {"paper", "pipd", "the paper's parameters (the defaults)", {}},
      {"prefilt", "pipd", "the paper's with the direction prefilter (not in the paper)", {{"direction-prefilter", "1"}}},
      {"quality", "pipd", "docs/PIPD.md's quality settings",
       {{"direction-prefilter", "1"}, {"thickness", "3"}, {"t2max", "1"}}},
      {"paper", "hybrid", "the paper's parameters (the defaults)", {}},
      {"prefilt", "hybrid", "the paper's with the direction prefilter (not in the paper)",
       {{"direction-prefilter", "1"}}},
      {"quality", "hybrid", "docs/PIPD.md's quality settings",
       {{"direction-prefilter", "1"}, {"thickness", "3"}, {"t2max", "1"}}},
      {"paper", "nlm3d",
       "the papers' filter (Cuomo et al. 2014): an 11^3 search cube, 3^3 similarity cubes, fixed windows, their "
       "self weight, beta 0.4",
       {{"patch-shape", "cube"}, {"patch-radius", "1"}, {"search-radius", "5"}, {"temporal-radius", "5"},
        {"neighbour-search-radius", "-1"}, {"motion-search", "off"}, {"distance-offset", "off"},
        {"frame-confidence", "0"}, {"self-weight-floor", "0"}, {"nlm-beta", "0.4"}}},
      {"video", "nlm3d", "the defaults, for moving video (docs/NLM3D.md, \"Moving video\")", {}},
      {"video-r3", "nlm3d", "the defaults as they were before frame confidence: frames t +- 1 .. 3, no confidence",
       {{"temporal-radius", "3"}, {"frame-confidence", "0"}}},
      {"fast", "nlm3d", "5x5 windows over 5 frames centred by motion, no frame confidence",
       {{"search-radius", "2"}, {"temporal-radius", "2"}, {"frame-confidence", "0"}}},
      {"fast-nomotion", "nlm3d",
       "fast without motion estimation (windows not moved), each other frame weighed by its confidence",
       {{"search-radius", "2"}, {"temporal-radius", "2"}, {"motion-search", "off"}, {"frame-confidence", "0.5"}}},
      {"rt0", "nlm3d", "the defaults without other frames (a spatial NLM): what the other frames add",
       {{"temporal-radius", "0"}}},
      {"nomotion", "nlm3d", "the defaults without motion estimation: what motion search adds",
       {{"motion-search", "off"}}},
      {"noconf", "nlm3d", "the defaults without frame confidence: what frame confidence adds",
       {{"frame-confidence", "0"}}},
      {"causal", "nlm3d", "the defaults on the causal window (frames t - Rt .. t only): live sources",
       {{"window", "causal"}}},
  };
  return table;
}

std::vector<const NamedSet*> named_sets_of(const std::string& mode) {
  std::vector<const NamedSet*> out;
  for (const NamedSet& n : named_sets())
    if (mode == n.mode) out.push_back(&n);
  return out;
}

const NamedSet* find_named_set(const std::string& mode, const std::string& name) {
  for (const NamedSet* n : named_sets_of(mode))
    if (name == n->name) return n;
  return nullptr;
}

std::string named_set_choices(const std::string& mode) {
  std::string list;
  for (const NamedSet* n : named_sets_of(mode)) list += (list.empty() ? "" : "|") + std::string(n->name);
  return list;
}

DenoiseSettings named_set_settings(const NamedSet& n) {
  std::string why;
  if (!preset_available(n, &why))
    throw InvalidArgument(std::string("named set ") + n.mode + " " + n.name + ": " + why);
  return preset_settings(n);
}

DenoiseSettings named_set_settings(const std::string& mode, const std::string& name) {
  const NamedSet* n = find_named_set(mode, name);
  if (!n)
    throw InvalidArgument("no named set " + name + " of mode " + mode + ": expected one of " +
                          named_set_choices(mode));
  return named_set_settings(*n);
}

NlmSettings nlm_paper_params() { return named_set_settings("nlm3d", "paper").nlm; }

PipdParams pipd_quality_params() { return named_set_settings("pipd", "quality").pipd; }

}  // namespace cdn
