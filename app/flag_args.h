#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace headroom::app {

// Rewrites command-line arguments for the flags library, which names flags with underscores
// and takes a lone "-" for a mistake:
// - flag names use dashes as operators type them (--output-dir) and become underscores
//   (--output_dir); values are never touched (--input=my-file.json);
// - "--flag -" (standard input) becomes "--flag=-".
std::vector<std::string> NormalizeFlagArgs(const std::vector<std::string>& args);

// The flags a --config file sets: a YAML map of flag name (dashes or underscores) to a scalar
// value, e.g. "scoring: pack", becomes {"--scoring=pack"}. InvalidArgument naming the key for
// a nested value or a "config" key.
absl::StatusOr<std::vector<std::string>> ConfigFileArgs(absl::string_view yaml);

// The value of --config (--config=F or --config F) among `args`; empty when absent.
std::string ConfigFlagValue(const std::vector<std::string>& args);

// A daemon's flag parsing: sets the usage message (without the program name, which --help
// puts first), lists in --help (FlagHelp, exit 0) only the flags defined in files whose path
// contains `flag_source` (e.g. "extender/") or app/ (shared flags), accepts dashed flag names
// and parses; exits 1 on a bad flag, as absl does. With --config FILE, the
// file's flags come first and the command line overrides them; an unreadable or malformed file
// exits 2. The daemon defines the `config` flag itself (so --help lists it).
void ParseDaemonFlags(int argc, char** argv, absl::string_view usage,
                      absl::string_view flag_source);

struct FlagDoc {
  std::string name;  // as defined, with underscores
  std::string default_value;
  std::string help;
};

// The --help text: "PROGRAM: USAGE", then each flag as "--dashed-name=DEFAULT" with its help
// wrapped at 80 columns, sorted by name.
std::string FlagHelp(absl::string_view program, absl::string_view usage,
                     std::vector<FlagDoc> flags);

struct HostPort {
  std::string host;
  int port = 0;
};

// "host:port" with port 0..65535; InvalidArgument naming `flag` otherwise.
absl::StatusOr<HostPort> ParseHostPort(absl::string_view address, absl::string_view flag);

}  // namespace headroom::app
