#include "cli/flag_args.h"

#include <algorithm>

#include "absl/strings/match.h"

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

}  // namespace headroom::cli
