#include "app/flag_args.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace headroom::app {
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

absl::StatusOr<std::vector<std::string>> ConfigFileArgs(absl::string_view yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("not YAML: ", e.what()));
  }
  std::vector<std::string> args;
  if (root.IsNull()) return args;  // an empty file sets nothing
  if (!root.IsMap()) return absl::InvalidArgumentError("expected a map of flag: value");
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (!entry.second.IsScalar()) {
      return absl::InvalidArgumentError(absl::StrCat(key, ": expected a single value"));
    }
    if (key == "config") return absl::InvalidArgumentError("config: cannot nest config files");
    args.push_back(absl::StrCat("--", key, "=", entry.second.as<std::string>()));
  }
  return args;
}

std::string ConfigFlagValue(const std::vector<std::string>& args) {
  std::string value;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i] == "--config" || args[i] == "-config") {
      if (i + 1 < args.size()) value = args[i + 1];
    } else if (absl::StartsWith(args[i], "--config=") || absl::StartsWith(args[i], "-config=")) {
      value = args[i].substr(args[i].find('=') + 1);
    }
  }
  return value;
}

void ParseDaemonFlags(int argc, char** argv, absl::string_view usage,
                      absl::string_view flag_source) {
  absl::SetProgramUsageMessage(usage);
  absl::FlagsUsageConfig config;
  const std::string source(flag_source);
  // Flags shared by several binaries live in app/.
  config.contains_help_flags = [source](absl::string_view file) {
    return absl::StrContains(file, source) || absl::StrContains(file, "app/");
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  absl::SetFlagsUsageConfig(config);
  // Flags may be written with dashes (--http-address) as in the docs.
  std::vector<std::string> command_line(argv + 1, argv + argc);
  std::vector<std::string> from_file;
  if (const std::string config = ConfigFlagValue(command_line); !config.empty()) {
    std::ifstream in(config);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<std::vector<std::string>> parsed =
        in ? ConfigFileArgs(text.str()) : absl::NotFoundError("cannot read it");
    if (!parsed.ok()) {
      std::cerr << argv[0] << ": --config " << config << ": " << parsed.status().message() << "\n";
      std::exit(2);
    }
    from_file = std::move(*parsed);
  }
  // The file first: for a flag given twice, the last value wins.
  from_file.insert(from_file.end(), command_line.begin(), command_line.end());
  std::vector<std::string> normalized = NormalizeFlagArgs(from_file);
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

}  // namespace headroom::app
