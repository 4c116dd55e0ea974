#include "cli/flag_args.h"

#include <algorithm>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace headroom::cli {
namespace {

bool IsFlag(const std::string& arg) { return absl::StartsWith(arg, "-") && arg != "-"; }

}  // namespace

std::vector<std::string> NormalizeFlagArgs(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  bool only_positional = false;  // after "--"
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (only_positional || !IsFlag(arg)) {
      out.push_back(std::move(arg));
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      out.push_back(std::move(arg));
      continue;
    }
    const size_t name_start = arg.find_first_not_of('-');
    const size_t name_end = std::min(arg.find('='), arg.size());
    for (size_t c = name_start; c < name_end; ++c) {
      if (arg[c] == '-') arg[c] = '_';
    }
    if (name_end == arg.size() && i + 1 < args.size() && args[i + 1] == "-") {
      arg += "=-";
      ++i;
    }
    out.push_back(std::move(arg));
  }
  return out;
}

void ParseDaemonFlags(int argc, char** argv, absl::string_view usage,
                      absl::string_view flag_source) {
  absl::SetProgramUsageMessage(usage);
  absl::FlagsUsageConfig config;
  const std::string source(flag_source);
  config.contains_help_flags = [source](absl::string_view file) {
    return absl::StrContains(file, source);
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  absl::SetFlagsUsageConfig(config);
  // Flags may be written with dashes (--http-address) as in the docs.
  std::vector<std::string> normalized =
      NormalizeFlagArgs(std::vector<std::string>(argv + 1, argv + argc));
  std::vector<char*> args = {argv[0]};
  for (std::string& arg : normalized) args.push_back(arg.data());
  absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
}

absl::StatusOr<HostPort> ParseHostPort(absl::string_view address, absl::string_view flag) {
  const size_t colon = address.rfind(':');
  HostPort out;
  if (colon == absl::string_view::npos || !absl::SimpleAtoi(address.substr(colon + 1), &out.port) ||
      out.port < 0 || out.port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " must be host:port, got \"", address, "\""));
  }
  out.host = std::string(address.substr(0, colon));
  return out;
}

}  // namespace headroom::cli
