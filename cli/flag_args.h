#pragma once

#include <string>
#include <vector>

namespace headroom::cli {

// Rewrites command-line arguments for the flags library, which names flags with underscores
// and takes a lone "-" for a mistake:
// - flag names use dashes as operators type them (--output-dir) and become underscores
//   (--output_dir); values are never touched (--input=my-file.json);
// - "--flag -" (standard input) becomes "--flag=-".
std::vector<std::string> NormalizeFlagArgs(const std::vector<std::string>& args);

}  // namespace headroom::cli
