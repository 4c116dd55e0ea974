#pragma once

// Whole-file reads for tests (binary-safe; "" when the file cannot be opened, which the
// test's own expectations then catch).

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace headroom::testing {

inline std::string FileContents(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A file under the source tree, e.g. SourceFile("tests/testdata/...").
inline std::filesystem::path SourceFile(const std::string& relative) {
  return std::filesystem::path(HEADROOM_SOURCE_DIR) / relative;
}

}  // namespace headroom::testing
