// options.h: the command line of cudadenoise-image, parsed into ImageOptions.
// Separate from main.cpp so the tests can check the parsing on its own.
#pragma once

#include <cstdint>
#include <string>

#include "cudadenoise/settings.h"
#include "output_path.h"

namespace cdn::tools {

struct ImageOptions {
  std::string input;  // empty: the built-in test picture
  std::string output;
  std::string save_noisy;
  std::string reference;
  // --save-noise-profile: measure the noise model of each component of the
  // (noisy) input and write it as a noise profile; nothing is denoised.
  std::string save_noise_profile;
  DenoiseSettings settings;  // the preset's, with the flags given on top
  std::string preset;        // --preset (default: cdn::default_preset_name())
  Backend backend = Backend::Auto;
  double noise_sigma = 0;  // AWGN added to the input (8-bit code values); 0: none
  std::uint64_t seed = 1;
  Overwrite overwrite = Overwrite::Refuse;  // -y, -n
  bool json = false;
  bool help = false;
};

// Throws UsageError (flags.h) with a one-line message for anything wrong,
// including parameter combinations that cdn::validate rejects and output names
// that are not .png or .pgm.
ImageOptions parse_image_options(int argc, const char* const* argv);

// The --help text.
std::string image_usage();

}  // namespace cdn::tools
